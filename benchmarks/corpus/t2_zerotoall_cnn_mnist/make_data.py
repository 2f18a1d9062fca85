"""Fake MNIST for hunkim/PyTorchZeroToAll 10_1_cnn_mnist.py: RUN/data/MNIST/raw.

The script reads datasets.MNIST(root='./data/', download=True): torchvision's uncompressed idx files,
19200 train (300 batches of 64 per epoch, 9 epochs) / 2000 test 28x28 blob images, random labels;
download=True finds them and downloads nothing.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=19200, n_test=2000)
