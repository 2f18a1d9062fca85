"""Fake MNIST for pytorch-accelerated's examples/core/train_mnist.py.

The script builds torchvision's MNIST(DATA_PATH, download=True) with DATA_PATH = the folder above the script's
own folder + "/data", i.e. RUN/examples/data: torchvision finds the uncompressed idx files in
RUN/examples/data/MNIST/raw and downloads nothing. The script then random_splits the training set into exactly
[50000, 5000, 5000], so the training file must hold 60000 images (as the real MNIST does): 60000 train / 1000 test
(unused) 28x28 blob images, random labels. 50000 / 32 = 1563 training steps per epoch, 2 epochs.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "examples" / "data" / "MNIST" / "raw", n_train=60000, n_test=1000)
