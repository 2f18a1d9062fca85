"""Fake MNIST for znxlwm/pytorch-generative-model-collections' main.py (--dataset mnist).

dataloader.py builds torchvision's datasets.MNIST('data/mnist', train=True, download=True): torchvision finds the
uncompressed idx files in RUN/data/mnist/MNIST/raw and downloads nothing. 6400 train / 100 test 28x28 blob images,
random labels: 100 steps of 64 per epoch (the loop stops at len(dataset) // batch_size).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "mnist" / "MNIST" / "raw", n_train=6400, n_test=100)
