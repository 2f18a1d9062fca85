"""Fake MNIST for pytorch-ignite/examples' tutorials/beginner/01-getting-started.ipynb.

The notebook reads MNIST(download=True, root="."): torchvision finds RUN/MNIST/raw, uncompressed idx files (fakedata's
blob images, random labels), 1280 train / 256 test 28x28 images instead of 60000 / 10000, so that the notebook's 5
epochs of ResNet-18 (10 steps of 128 an epoch, each epoch followed by an evaluation pass over the training set and the
test set) take one to two minutes on a quiet 2-core machine.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "MNIST" / "raw", n_train=1280, n_test=256)
