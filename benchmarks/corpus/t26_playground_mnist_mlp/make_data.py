"""MNIST stand-in for aaron-xichen/pytorch-playground's mnist/train.py.

mnist/dataset.py reads torchvision's MNIST(root=<--data_root>/mnist-data, download=True); the recipe passes
--data_root data, so torchvision looks in RUN/data/mnist-data/MNIST/raw for the four uncompressed idx files and, finding
them, downloads nothing (torchvision checks only that they exist). fakedata.mnist_idx writes them with MNIST's own
sizes: 60000 training and 10000 test 28x28 uint8 images (a few bright blobs on a dark noisy ground, random labels, seeded).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "mnist-data" / "MNIST" / "raw", n_train=60000, n_test=10000, seed=26)
