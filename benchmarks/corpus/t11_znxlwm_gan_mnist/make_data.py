"""Fake MNIST for znxlwm/pytorch-MNIST-CelebA-GAN-DCGAN's pytorch_MNIST_GAN.py.

The script builds torchvision's datasets.MNIST('data', train=True, download=True) relative to its working
directory, i.e. RUN/data: torchvision finds the uncompressed idx files in RUN/data/MNIST/raw and downloads nothing.
6400 train / 1000 test (unused) 28x28 blob images, random labels (unused by a GAN): 50 steps of 128 (the last one 0 short: 6400 = 50 x 128).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=6400, n_test=1000)
