"""Fake CIFAR-100 for clovaai/CutMix-PyTorch's train.py (PyramidNet + CutMix).

The script runs from RUN/code (the recipe's cwd; its files are placed there) and reads torchvision's
CIFAR100('../data', ...), i.e. RUN/data/cifar-100-python in torchvision's pickle layout (the recipe's edit skips
torchvision's md5 check). 1920 train / 256 test 32x32 smooth-noise images, random labels: 30 training steps of 64,
4 validation batches of 64.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar100_pickles  # noqa: E402

if __name__ == "__main__":
    cifar100_pickles(Path(sys.argv[1]) / "data", n_train=1920, n_test=256)
