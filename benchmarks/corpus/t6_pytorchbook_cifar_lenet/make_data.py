"""Fake CIFAR-10 for chenyuntc/pytorch-book's Chapter2/Chapter2.ipynb (the getting-started chapter's CIFAR-10 classifier).

The notebook builds torchvision's CIFAR10(root='./pytorch-book-cifar10/', download=True) from its own folder
(the recipe's cwd is Chapter2), so RUN/Chapter2/pytorch-book-cifar10/cifar-10-batches-py holds the pickles:
8000 training / 2000 test 32x32 smooth-noise images, random labels (fakedata.cifar10_pickles). With batch 4 that is
2000 training steps an epoch, 2 epochs, and 500 test batches.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "Chapter2" / "pytorch-book-cifar10", n_train=8000, n_test=2000)
