"""Fake CIFAR-10 for sthalles/SimCLR's run.py (-dataset-name cifar10).

ContrastiveLearningDataset.get_dataset calls torchvision's CIFAR10("./datasets", train=True, download=True): it finds
RUN/datasets/cifar-10-batches-py (fakedata's cifar10_pickles: smooth 32x32 colour images, random labels; the recipe's
edit switches off torchvision's md5 check). 2560 train images (instead of 50000) and 100 test images (never read:
SimCLR pre-training uses the training split only); with -b 256 and drop_last an epoch is 10 steps.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "datasets", n_train=2560, n_test=100)
