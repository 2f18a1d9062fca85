"""Fake MNIST for GRAAL-Research/poutyne's examples/basic_mnist_classification.py.

The script calls torchvision's MNIST('./datasets', download=True), which finds RUN/datasets/MNIST/raw: uncompressed
idx files. random_split(train_valid_dataset, [50_000, 10_000]) needs exactly 60000 training images, so the sizes are
MNIST's own: 60000 train / 10000 test 28x28 blob images with random labels (the test set is built but never used).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "datasets" / "MNIST" / "raw", n_train=60000, n_test=10000)
