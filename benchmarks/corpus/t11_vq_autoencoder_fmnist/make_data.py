"""Fake FashionMNIST for lucidrains/vector-quantize-pytorch's examples/autoencoder.py.

The script builds torchvision's datasets.FashionMNIST(root="~/data/fashion_mnist", download=True); the recipe's edit
points HOME at the working directory (the run folder), so torchvision finds the uncompressed idx files in
RUN/data/fashion_mnist/FashionMNIST/raw and downloads nothing. 60000 train / 1000 test (unused) 28x28 blob images,
random labels (unused by the autoencoder): 235 batches of 256 per pass.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "fashion_mnist" / "FashionMNIST" / "raw", n_train=60000, n_test=1000)
