"""Fake MNIST for PyTorch-GAN implementations/acgan/acgan.py: RUN/data/mnist/MNIST/raw.

The script runs from RUN/implementations/acgan and reads ../../data/mnist. torchvision's
uncompressed idx files: 12800 train (200 batches of 64) / 2000 test blob images, random labels.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "mnist" / "MNIST" / "raw", n_train=12800, n_test=2000)
