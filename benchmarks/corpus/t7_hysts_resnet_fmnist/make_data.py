"""Fake Fashion-MNIST for hysts/pytorch_image_classification's train.py (dataset.name FashionMNIST).

The script builds torchvision.datasets.FashionMNIST(dataset.dataset_dir, download=True), which finds
RUN/data/FashionMNIST/raw (update_config forces dataset_dir to ~/.torch/datasets; the recipe's one edit points it at
./data): uncompressed idx files (fakedata's MNIST writer: 28x28 blob images, random labels), 4000 train / 1000 test, so one epoch is 4000 // 128 = 31 steps (drop_last) and validation is 4 batches of 256.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "FashionMNIST" / "raw", n_train=4000, n_test=1000)
