"""Fake MNIST for Zeleni9/pytorch-wgan's main.py (--dataset mnist --dataroot data/mnist).

The repository's own utils/fashion_mnist.MNIST (a copy of torchvision 0.3's) reads RUN/data/mnist/processed/training.pt
and test.pt: torch.save'd (uint8 images N x 28 x 28, int64 labels) tuples, what its download() makes from the idx
files. We write the idx files with fakedata's mnist_idx (6400 train / 200 test blob images, random labels) into
RUN/data/mnist/raw and convert them the same way. The GAN model runs epochs + 1 = 2 epochs of 6400 // 64 = 100 steps
(it breaks at i == len // batch_size), with its TensorBoard logging at step 100 of each epoch.
"""
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402


def idx_array(path: Path, header: int) -> np.ndarray:
    return np.frombuffer(path.read_bytes()[header:], dtype=np.uint8)


if __name__ == "__main__":
    root = Path(sys.argv[1]) / "data" / "mnist"
    mnist_idx(root / "raw", n_train=6400, n_test=200)
    (root / "processed").mkdir(parents=True, exist_ok=True)
    for prefix, name in (("train", "training.pt"), ("t10k", "test.pt")):
        images = torch.from_numpy(idx_array(root / "raw" / f"{prefix}-images-idx3-ubyte", 16).reshape(-1, 28, 28).copy())
        labels = torch.from_numpy(idx_array(root / "raw" / f"{prefix}-labels-idx1-ubyte", 8).astype(np.int64))
        torch.save((images, labels), root / "processed" / name)
