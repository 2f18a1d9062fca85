"""Fake MNIST for victoresque/pytorch-template's train.py -c config.json.

The config's MnistDataLoader builds torchvision's MNIST("data/", download=True) from the run folder, which finds the
uncompressed idx files in RUN/data/MNIST/raw and downloads nothing. 12000 train / 1000 test (unused) 28x28 blob
images, random labels: validation_split 0.1 leaves 10800 training images = 85 steps of 128 per epoch (the last one 48) and 1200
validation images (10 batches of 128).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=12000, n_test=1000)
