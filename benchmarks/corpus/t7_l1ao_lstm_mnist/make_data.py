"""Fake MNIST for L1aoXingyu/code-of-learn-deep-learning-with-pytorch's chapter5_RNN/rnn-for-image.ipynb.

The notebook builds torchvision's MNIST('./data', train=True/False) without download from its folder (the cwd,
chapter5_RNN), which finds RUN/chapter5_RNN/data/MNIST/raw: uncompressed idx files, 3000 train / 500 test 28x28
blob images, random labels (the real set has 60000 / 10000): 47 training steps of 64 and 4 validation batches of 128
per epoch, 10 epochs.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "chapter5_RNN" / "data" / "MNIST" / "raw", n_train=3000, n_test=500)
