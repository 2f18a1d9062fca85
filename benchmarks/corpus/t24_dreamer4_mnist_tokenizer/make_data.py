"""Fake MNIST for lucidrains/dreamer4's train_moving_mnist_tokenizer.py: RUN/data/MNIST/raw.

The script's MovingMNISTDataset (dataset_moving_mnist.py) makes torchvision.datasets.MNIST(root='./data',
train=True, download=True) from the run folder; torchvision finds the uncompressed idx files in ./data/MNIST/raw and
downloads nothing. 2000 generated 28x28 digit-like images (seeded) stand in for MNIST's 60000; each item becomes a
5-frame 32x32 video of the (resized 14x14) digit moving at a random velocity, made in __getitem__.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=2000, n_test=200)
