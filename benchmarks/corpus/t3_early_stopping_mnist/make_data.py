"""Fake MNIST for Bjarten/early-stopping-pytorch's MNIST_Early_Stopping_example.ipynb.

The notebook's create_datasets calls torchvision's MNIST(root='data', download=True), which finds RUN/data/MNIST/raw:
uncompressed idx files with MNIST's sizes, 60000 train / 10000 test 28x28 blob images (fakedata's mnist_idx). The
notebook keeps 20% of the training set for validation (SubsetRandomSampler), so an epoch is 48000 / 256 = 188 training
steps and 47 validation batches.

The labels are not random (as fakedata's mnist_idx writes them) but a function of the image (which quadrant holds the
most ink, and whether the image is brighter than the median), so the model can learn and the validation loss falls for
a while: EarlyStopping(patience=20) then stops the 100-epoch run some epochs after the validation loss stops improving,
as on the real data, instead of at an accident of noise.
"""
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402


def learnable_labels(raw: Path) -> None:
    for prefix in ("train", "t10k"):
        with open(raw / f"{prefix}-images-idx3-ubyte", "rb") as f:
            _, n, h, w = struct.unpack(">IIII", f.read(16))
            images = np.frombuffer(f.read(), dtype=np.uint8).reshape(n, h, w).astype(np.float32)
        quadrants = np.stack([images[:, :14, :14].sum((1, 2)), images[:, :14, 14:].sum((1, 2)),
                              images[:, 14:, :14].sum((1, 2)), images[:, 14:, 14:].sum((1, 2))], 1)
        total = images.sum((1, 2))
        labels = quadrants.argmax(1) * 2 + (total > np.median(total))  # 0..7
        labels[total > np.quantile(total, 0.9)] = 8
        labels[total < np.quantile(total, 0.1)] = 9
        with open(raw / f"{prefix}-labels-idx1-ubyte", "wb") as f:
            f.write(struct.pack(">II", 2049, n))
            f.write(labels.astype(np.uint8).tobytes())


if __name__ == "__main__":
    raw = Path(sys.argv[1]) / "data" / "MNIST" / "raw"
    mnist_idx(raw, n_train=60000, n_test=10000)
    learnable_labels(raw)
