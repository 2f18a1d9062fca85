"""Fake MNIST for Lightning's examples/pytorch/basics/autoencoder.py.

The example reads MNIST twice: lightning's demo MNIST() first calls torchvision's
MNIST("./data", download=True) from the working folder, then opens torchvision's MNIST at
<script dir>/../../Datasets. Both get the same uncompressed idx files: RUN/data/MNIST/raw, and
RUN/examples/Datasets -> ../data. 60000 train (the script's random_split needs exactly 55000 + 5000)
and 10000 test 28x28 blob images, random labels.
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    mnist_idx(run / "data" / "MNIST" / "raw", n_train=60000, n_test=10000)
    link = run / "examples" / "Datasets"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        os.symlink(os.path.join("..", "data"), link)
