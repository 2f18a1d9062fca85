"""Fake MNIST for MorvanZhou/PyTorch-Tutorial tutorial-contents/402_RNN_classifier.py: RUN/mnist/MNIST/raw.

The script reads dsets.MNIST(root='./mnist/', download=True): torchvision's uncompressed idx files,
60000 train (938 batches of 64, MNIST's size) / 10000 test 28x28 blob images, random labels; download=True
finds them and downloads nothing. (The repository ships real MNIST next to the script; we do not copy it.)
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "mnist" / "MNIST" / "raw", n_train=60000, n_test=10000)
