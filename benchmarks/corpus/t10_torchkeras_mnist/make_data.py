"""Fake MNIST for torchkeras's kerasmodel_example.py.

The script reads torchvision's MNIST(root="mnist/", download=True) from its working folder, which finds the
uncompressed idx files in RUN/mnist/MNIST/raw and downloads nothing. It keeps every 20th image
(Subset(range(0, len, 20))), so the files hold MNIST's real sizes: 60000 train / 10000 test 28x28 images ->
3000 training images (24 steps of 128 per epoch) and 500 validation images (4 batches of 128, the last 116).

Training images: fakedata's blob+noise digits, random labels. Test images: one blob image repeated, with labels
such that the 500 kept ones (indices 0, 20, 40, ...) hold exactly 50 of each class. The model then predicts the
same class for every validation image, val_acc is exactly 0.1 after every epoch, and the script's early stopping
(fit(..., epochs=100, patience=5, monitor="val_acc", mode="max")) ends the run after exactly 6 epochs instead
of after a random number of epochs (random labels make the best val_acc land on a random epoch).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits, _write_idx_images, _write_idx_labels  # noqa: E402

if __name__ == "__main__":
    raw = Path(sys.argv[1]) / "mnist" / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    _write_idx_images(raw / "train-images-idx3-ubyte", _blob_digits(60000, 28, rng))
    _write_idx_labels(raw / "train-labels-idx1-ubyte", rng.integers(0, 10, 60000))
    _write_idx_images(raw / "t10k-images-idx3-ubyte", np.repeat(_blob_digits(1, 28, rng), 10000, axis=0))
    _write_idx_labels(raw / "t10k-labels-idx1-ubyte", (np.arange(10000) // 20) % 10)
