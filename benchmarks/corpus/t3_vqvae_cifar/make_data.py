"""Fake CIFAR-10 for zalandoresearch/pytorch-vq-vae's vq-vae.ipynb.

torchvision's CIFAR10(root="data", download=True) finds RUN/data/cifar-10-batches-py (fakedata's cifar10_pickles:
10000 train / 1000 test smooth 32x32 colour images, random labels; the recipe's edit switches off torchvision's md5
check). The notebook draws each batch of 256 with next(iter(training_loader)), so the training-set size only sets
data_variance and the shuffle permutation's length.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=10000, n_test=1000)
