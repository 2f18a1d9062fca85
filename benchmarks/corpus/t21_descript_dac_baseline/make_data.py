"""Generated audio for descriptinc/descript-audio-codec's scripts/train.py (conf/ablations/baseline.yml).

The published config reads its training audio from /data/daps, /data/vctk, ... (build_dataset.folders). This writes
seeded 44.1 kHz mono 16-bit WAV files (1.0 s each: a few harmonic tones with vibrato plus a little noise, random
amplitude envelope) into RUN/data/train/ (N_TRAIN files) and RUN/data/val/ (N_VAL files), and a small argbind file
RUN/conf/local_data.yml that points train/, val/ and test/ build_dataset.folders at them (a dict key argbind cannot
take on the command line); it $includes conf/ablations/baseline.yml (base.yml + 1gpu.yml) and the command line loads it with --args.load.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import fakedata  # noqa: E402

SR = 44100
N_TRAIN = 64
N_VAL = 16
SECONDS = 1.0


def write_wav(path: Path, rng: np.random.Generator) -> None:
    t = np.arange(int(SR * SECONDS)) / SR
    x = np.zeros_like(t)
    for _ in range(rng.integers(1, 4)):
        f0 = rng.uniform(80, 800)
        vib = 1 + 0.01 * np.sin(2 * np.pi * rng.uniform(3, 7) * t)
        for h in range(1, rng.integers(2, 8)):
            x += rng.uniform(0.1, 1.0) / h * np.sin(2 * np.pi * f0 * h * vib * t + rng.uniform(0, 6.28))
    x += 0.02 * rng.standard_normal(len(t))
    env = np.interp(t, np.linspace(0, SECONDS, 8), rng.uniform(0.2, 1.0, 8))
    x = x * env
    x = 0.5 * x / (np.abs(x).max() + 1e-9)
    fakedata.write_wav(path, (x * 32767).astype("<i2"), SR)


def main(run: Path) -> None:
    rng = np.random.default_rng(21)
    for split, n in (("train", N_TRAIN), ("val", N_VAL)):
        d = run / "data" / split
        d.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            write_wav(d / f"{split}_{i:03d}.wav", rng)
    (run / "conf").mkdir(exist_ok=True)
    (run / "conf" / "local_data.yml").write_text(
        "# ours: the README's config, with generated WAVs instead of /data/daps, /data/vctk, ...\n"
        "$include:\n  - conf/ablations/baseline.yml\n"
        "train/build_dataset.folders:\n  speech_hq:\n    - data/train\n"
        "val/build_dataset.folders:\n  speech_hq:\n    - data/val\n"
        "test/build_dataset.folders:\n  speech_hq:\n    - data/val\n"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
