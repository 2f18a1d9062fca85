"""Fake Kaggle Digit Recognizer CSVs for marcherlitz/Kaggle_DigitRecognizer's digitRecognizer.ipynb.

The notebook reads digit-recognizer/train.csv (label, pixel0..pixel783) and digit-recognizer/test.csv
(pixel0..pixel783) with pandas, relative to the run folder. We write 840 train / 560 test rows (a fiftieth of
Kaggle's 42000 / 28000) of 28x28 blob+noise digits with random labels (fakedata's MNIST generator). The notebook's
unseeded 80/20 mask leaves ~670 training rows: ~6 steps of 128 per epoch (the last one short), 10 epochs (~60 steps), 2 validation batches each.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402


def write_csv(path: Path, images: np.ndarray, labels: np.ndarray | None) -> None:
    flat = images.reshape(len(images), 784).astype(np.int64)
    header = ",".join(([] if labels is None else ["label"]) + [f"pixel{i}" for i in range(784)])
    rows = flat if labels is None else np.concatenate([labels[:, None].astype(np.int64), flat], axis=1)
    np.savetxt(path, rows, fmt="%d", delimiter=",", header=header, comments="")


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "digit-recognizer"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    write_csv(folder / "train.csv", _blob_digits(840, 28, rng), rng.integers(0, 10, 840))
    write_csv(folder / "test.csv", _blob_digits(560, 28, rng), None)
