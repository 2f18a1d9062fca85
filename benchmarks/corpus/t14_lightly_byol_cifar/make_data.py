"""Fake CIFAR-10 for lightly's examples/pytorch/byol.py.

The script reads torchvision's CIFAR10("datasets/cifar10", download=True) relative to its working directory (the run
folder), which finds RUN/datasets/cifar10/cifar-10-batches-py (torchvision's python-pickle layout; the recipe's edit
on the `import torchvision` line skips torchvision's md5 check, which would otherwise try to download over our
generated files). 8192 train / 100 test (unused) 32x32 smooth-noise images, random labels: 32 steps of 256
(drop_last) in the one epoch the recipe runs.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "datasets" / "cifar10", n_train=8192, n_test=100)
