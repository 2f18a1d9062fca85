"""Fake CIFAR-10 for deep-learning-with-pytorch/dlwpt-code's p1ch7/2_birds_airplanes.ipynb.

The notebook runs in p1ch7/ and reads datasets.CIFAR10('../data-unversioned/p1ch7/', download=False), so the
python-pickle layout goes to RUN/data-unversioned/p1ch7/cifar-10-batches-py: 300 train images (5 batches of 60)
and 300 test images of smooth random 32x32 colour fields with random labels (fakedata.cifar10_pickles). The
notebook keeps classes 0 and 2 (airplane, bird): about 60 training and 60 validation images of "CIFAR-2"
(~6000 batch-1 SGD steps in its first 100-epoch loop, one batch of ~60 per epoch in the later ones). The recipe's
first edit skips torchvision's md5 checks (our files are generated).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data-unversioned" / "p1ch7", n_train=300, n_test=300)
