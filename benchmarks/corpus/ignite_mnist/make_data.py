"""Fake MNIST for pytorch/ignite examples/mnist/mnist.py: RUN/MNIST/raw (the script's root is ".").

torchvision's uncompressed idx files, 20000 train / 4000 test 28x28 blob images, random labels;
MNIST(download=True) finds them and downloads nothing.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "MNIST" / "raw", n_train=20000, n_test=4000)
