"""Fake CIFAR-10 for Spijkervet/SimCLR's main.py.

main.py reads torchvision's CIFAR10(args.dataset_dir="./datasets", download=True), which finds
RUN/datasets/cifar-10-batches-py (torchvision's python-pickle layout; the recipe's edit on the `import torchvision`
line skips torchvision's md5 checks, which would otherwise try to download over our generated files).
2048 train / 100 test (unused) 32x32 smooth-noise images, random labels: 32 steps of 64 (--batch_size 64) (drop_last) in one epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "datasets", n_train=2048, n_test=100)
