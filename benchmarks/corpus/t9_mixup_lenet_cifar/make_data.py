"""Fake CIFAR-10 for facebookresearch/mixup-cifar10's train.py.

The script reads torchvision's CIFAR10(root='~/data', download=False); the recipe sets HOME=. so '~/data' is
RUN/data, where this writes cifar-10-batches-py (torchvision's python-pickle layout; the recipe's edit on the
`import torchvision.datasets as datasets` line skips torchvision's md5 check, which fails on generated files).
12800 train / 2000 test 32x32 smooth-noise images, random labels: 100 steps of 128 per epoch, 20 test batches of 100.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=12800, n_test=2000)
