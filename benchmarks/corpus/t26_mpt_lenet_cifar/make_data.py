"""Fake CIFAR-10 for PacktPublishing/Mastering-PyTorch's Chapter03/lenet.ipynb (LeNet on CIFAR-10, batch 8).

The notebook builds torchvision's CIFAR10(root='./data', download=True) from its own folder (the recipe's cwd is
Chapter03), so RUN/Chapter03/data/cifar-10-batches-py holds the pickles: 2000 training / 10000 test 32x32
smooth-noise images with random labels (fakedata.cifar10_pickles). The test set must keep CIFAR-10's 10000 images:
the per-class accuracy cell loops `for i in range(10000)` over one test batch of 10000. With batch 8 that is 250
training steps an epoch, 50 epochs (fixed in the notebook), and one 10000-image test batch after every epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "Chapter03" / "data", n_train=2000, n_test=10000)
