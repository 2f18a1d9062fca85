"""Fake MNIST for adambielski/siamese-triplet's Experiments_MNIST.ipynb.

The notebook (run from RUN/siamese-triplet) builds torchvision's MNIST('../data/MNIST', download=True), which finds
the uncompressed idx files in RUN/data/MNIST/MNIST/raw and downloads nothing. 28x28 blob images, random labels 0-9
(every class has well over 25 images in both sets, as the notebook's BalancedBatchSampler of 10 classes x 25 samples
needs).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

N_TRAIN, N_TEST = 512, 256

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "MNIST" / "raw", n_train=N_TRAIN, n_test=N_TEST)
