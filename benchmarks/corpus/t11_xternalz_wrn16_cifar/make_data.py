"""Fake CIFAR-10 for xternalz/WideResNet-pytorch's train.py.

The script reads torchvision's CIFAR10('../data', download=True) from its own folder (cwd
RUN/WideResNet-pytorch), i.e. RUN/data/cifar-10-batches-py: 12800 train / 1280 test smooth 32x32 images, random
labels, in torchvision's pickle format (the recipe's edit turns torchvision's md5 checks off, so nothing is
downloaded). 12800 / 128 = 100 training steps per epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=12800, n_test=1280)
