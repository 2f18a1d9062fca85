"""Fake MNIST for GunhoChoi/PyTorch-FastCampus' 03_CNN_Basics/0_MNIST/3_CNN_clean.ipynb.

The notebook builds torchvision's MNIST("./", download=True) from its own folder, which finds the uncompressed idx
files in RUN/03_CNN_Basics/0_MNIST/MNIST/raw and downloads nothing. 6400 train / 1000 test 28x28 blob images, random
labels: 400 training steps of 16 per epoch (drop_last), 10 epochs; 62 test batches of 16.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "03_CNN_Basics" / "0_MNIST" / "MNIST" / "raw", n_train=6400, n_test=1000)
