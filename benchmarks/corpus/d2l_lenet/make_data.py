"""Fake Fashion-MNIST for d2l's LeNet notebook (chapter_convolutional-neural-networks/lenet.ipynb).

d2l.FashionMNIST reads torchvision's FashionMNIST from root '../data', relative to the notebook's
folder: RUN/data/FashionMNIST/raw, uncompressed idx files, 12000 train (94 batches of 128) /
2000 test 28x28 blob images, random labels; download=True then finds them.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "FashionMNIST" / "raw", n_train=12000, n_test=2000)
