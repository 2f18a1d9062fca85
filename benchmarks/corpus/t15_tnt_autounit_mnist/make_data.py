"""Fake MNIST for pytorch/tnt's examples/mnist/main.py (torchtnt AutoUnit + fit).

The script runs from examples/mnist and reads torchvision's MNIST("../data", download=True), i.e.
RUN/examples/data/MNIST/raw: torchvision finds the uncompressed idx files there and downloads nothing.
60000 train / 10000 test 28x28 blob images (MNIST's sizes), random labels. The script caps each training epoch at
--max-train-steps-per-epoch 20 steps of 64 (the DataLoader does not shuffle, so only the first 1280 training images
are used) and evaluates the whole 10000-image test set (10 batches of 1000) after every epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "examples" / "data" / "MNIST" / "raw", n_train=60000, n_test=10000)
