"""Fake MNIST for kevinzakka/recurrent-visual-attention's main.py (RAM on MNIST).

data_loader.get_train_valid_loader calls torchvision's MNIST("./data", train=True, download=True), which finds
RUN/data/MNIST/raw: uncompressed idx files, 12000 train / 1000 test 28x28 blob+noise images, random labels. The
script keeps valid_size=0.1 of the training images for validation (SubsetRandomSampler), so an epoch is
10800 images = 85 steps of 128 (the last one of 48) and a validation pass of 1200 images (10 batches).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=12000, n_test=1000)
