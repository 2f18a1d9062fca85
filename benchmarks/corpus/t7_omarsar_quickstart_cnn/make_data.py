"""Fake MNIST for omarsar/pytorch_notebooks' pytorch_quick_start.ipynb.

The notebook builds torchvision's MNIST(root='./data', train=..., download=True): torchvision finds the uncompressed
idx files in RUN/data/MNIST/raw and downloads nothing. 4000 train / 1000 test 28x28 blob images, random labels (the
real set has 60000 / 10000): 125 training steps of 32 per epoch, 5 epochs, then 32 test batches.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=4000, n_test=1000)
