"""Fake Fashion-MNIST for LynnHo/DCGAN-LSGAN-WGAN-GP-DRAGAN-Pytorch's train.py --dataset=fashion_mnist.

data.make_32x32_dataset builds torchvision's FashionMNIST('data/FashionMNIST', download=True) relative to the cwd
(the run folder): torchvision finds the uncompressed idx files in RUN/data/FashionMNIST/FashionMNIST/raw and
downloads nothing. 4800 train / 100 test (unused) 28x28 blob+noise images, random labels (the script uses only the
images): with batch 64 and drop_last, 75 D+G steps in the one epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "FashionMNIST" / "FashionMNIST" / "raw", n_train=4800, n_test=100)
