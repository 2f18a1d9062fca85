"""Fake CIFAR-10 for kentaroy47/vision-transformers-cifar10's train_cifar10.py.

The script reads torchvision's CIFAR10(root='./data', download=True), which finds RUN/data/cifar-10-batches-py
(torchvision's python-pickle layout; the recipe's edit on the `import torchvision` line skips torchvision's md5
check, which would otherwise try to download over our generated files). 640 train / 200 test 32x32 smooth-noise
images, random labels: 10 steps of 64 (--bs 64), 2 test batches of 100.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=640, n_test=200)
