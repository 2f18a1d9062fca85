"""Fake ECG5000 for curiousily/Getting-Things-Done-with-Pytorch's 06.time-series-anomaly-detection-ecg.ipynb.

The notebook downloads ECG5000.zip with gdown (a Google Drive id), unzips it with `!unzip -qq ECG5000.zip` and
reads ECG5000_TRAIN.arff / ECG5000_TEST.arff (Weka ARFF: attributes att1..att140 numeric and a nominal target
{1,2,3,4,5}, class 1 = normal heartbeat). We write RUN/ECG5000.zip holding the two ARFF files in that format, so
the notebook's own unzip cell unpacks them (its gdown cell fails harmlessly: gdown is not installed, no network).
Each series is 140 z-normalised samples of a synthetic heartbeat (P wave, QRS complex, T wave as Gaussian bumps,
jittered, plus noise); classes 2-5 distort the shape. 420 series: 300 normal (class 1) and 120 anomalies;
80 in the TRAIN file and 340 in the TEST file (ECG5000 itself: 5000 series, 2919 normal, 500/4500).
The notebook keeps the normal series and splits them 85/10/5: 255 training sequences (one optimizer step each).
"""
import sys
import zipfile
from pathlib import Path

import numpy as np

SEQ_LEN = 140
N_NORMAL, N_ANOMALY, N_TRAIN_FILE = 300, 120, 80


def heartbeat(cls: int, rng: np.random.Generator) -> np.ndarray:
    t = np.linspace(0.0, 1.0, SEQ_LEN)
    waves = [(0.2, 0.04, 0.25), (0.36, 0.012, -0.3), (0.4, 0.015, 2.0), (0.44, 0.012, -0.6), (0.7, 0.06, 0.5)]
    x = np.zeros(SEQ_LEN)
    for centre, width, height in waves:
        c = centre + rng.normal(0, 0.01)
        w = width * rng.uniform(0.8, 1.25)
        h = height * rng.uniform(0.8, 1.2)
        if cls == 2 and centre == 0.7:      # R on T: a second spike on the T wave
            h = 1.8
        if cls == 3 and centre == 0.4:      # PVC: wide QRS
            w *= 3.0
        if cls == 4:                        # SP: shifted beat
            c += 0.15
        if cls == 5 and centre == 0.2:      # UB: missing P wave
            h = 0.0
        x += h * np.exp(-((t - c) ** 2) / (2 * w * w))
    x += 0.3 * np.sin(2 * np.pi * t * rng.uniform(0.5, 1.5)) + rng.normal(0, 0.05, SEQ_LEN)
    return (x - x.mean()) / x.std()


def arff_text(rows: list[tuple[np.ndarray, int]]) -> str:
    lines = ["@relation 'ECG5000'", ""]
    lines += [f"@attribute att{i + 1} numeric" for i in range(SEQ_LEN)]
    lines += ["@attribute target {1,2,3,4,5}", "", "@data"]
    for x, cls in rows:
        lines.append(",".join(f"{v:.6f}" for v in x) + f",{cls}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    classes = [1] * N_NORMAL + list(rng.choice([2, 3, 4, 5], size=N_ANOMALY, p=[0.55, 0.3, 0.05, 0.1]))
    rng.shuffle(classes)
    rows = [(heartbeat(int(c), rng), int(c)) for c in classes]
    run.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(run / "ECG5000.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for name, part in (("ECG5000_TRAIN.arff", rows[:N_TRAIN_FILE]), ("ECG5000_TEST.arff", rows[N_TRAIN_FILE:])):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, arff_text(part))
