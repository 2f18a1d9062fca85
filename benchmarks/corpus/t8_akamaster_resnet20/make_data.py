"""Fake CIFAR-10 for akamaster/pytorch_resnet_cifar10's trainer.py.

The script reads torchvision's CIFAR10(root='./data', download=True), which finds RUN/data/cifar-10-batches-py
(torchvision's python-pickle layout; the recipe's edit on the `import torchvision.datasets as datasets` line
skips torchvision's md5 check, which would otherwise try to download over our generated files).
2560 train / 500 test 32x32 smooth-noise images, random labels: 20 steps of 128, 4 test batches of 128
(the last one 116).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=2560, n_test=500)
