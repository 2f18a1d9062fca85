"""Fake Kaggle Digit Recognizer train.csv for lazyprogrammer/machine_learning_examples' ann_class2/pytorch_batchnorm.py.

The script runs from ann_class2/ and util.get_normalized_data() reads ../large_files/train.csv (label, pixel0..pixel783,
integers) with pandas, shuffles it (unseeded np.random.shuffle), keeps the last 1000 rows as the test set and
standardises each pixel column. Kaggle's file has 42000 rows; we write 4000 rows (about a tenth) of 28x28 blob+noise digits
with random labels (fakedata's MNIST-like generator, seeded): 3000 training rows, 93 steps of 32 an epoch (the last 24
rows unused), 15 epochs (the script's fixed count) = 1395 steps, and each epoch scores all 3000 training rows and
twice the 1000 test rows in one full-batch forward each.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402

N_ROWS = 4000

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "large_files"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    images = _blob_digits(N_ROWS, 28, rng).reshape(N_ROWS, 784).astype(np.int64)
    labels = rng.integers(0, 10, N_ROWS)
    header = ",".join(["label"] + [f"pixel{i}" for i in range(784)])
    rows = np.concatenate([labels[:, None], images], axis=1)
    np.savetxt(folder / "train.csv", rows, fmt="%d", delimiter=",", header=header, comments="")
