"""Fake MNIST for aladdinpersson/Machine-Learning-Collection ML/Pytorch/Basics/pytorch_rnn_gru_lstm.py.

The script opens MNIST(root="dataset/", download=True) for train and test from its own folder: we write
torchvision's uncompressed idx files into RUN/dataset/MNIST/raw (12800 train / 3200 test 28x28 blob images,
random labels), so nothing is downloaded.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "dataset" / "MNIST" / "raw", n_train=12800, n_test=3200)
