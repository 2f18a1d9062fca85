"""Fake Fashion-MNIST for udacity/deep-learning-v2-pytorch's "intro-to-pytorch/Part 5 - Inference and Validation (Solution)".

The notebook reads datasets.FashionMNIST('~/.pytorch/F_MNIST_data/', download=True): the recipe runs it with HOME set
to the run folder (HOME=".", relative to the cwd), so torchvision finds RUN/.pytorch/F_MNIST_data/FashionMNIST/raw:
uncompressed idx files (fakedata's blob images, random labels), 2560 train / 640 test 28x28 images instead of
60000 / 10000, so that the notebook's two 30-epoch loops (batch 64: 40 steps an epoch, 2400 in all, each epoch
followed by a 10-batch test pass) take well under a minute on a quiet machine.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / ".pytorch" / "F_MNIST_data" / "FashionMNIST" / "raw", n_train=2560, n_test=640)
