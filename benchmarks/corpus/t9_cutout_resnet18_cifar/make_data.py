"""Fake CIFAR-10 for uoguelph-mlrg/Cutout's train.py.

The script reads torchvision's CIFAR10(root='data/', download=True), which finds RUN/data/cifar-10-batches-py
(torchvision's python-pickle layout; the recipe's edit on the `from torchvision import datasets, transforms` line
skips torchvision's md5 check, which would otherwise try to download over our generated files).
1024 train / 192 test 32x32 smooth-noise images, random labels: 32 steps of 32, 6 test batches of 32.
The script also writes logs/cifar10_resnet18.csv and checkpoints/cifar10_resnet18.pt into folders it does not
create (the repository's .gitignore lists them; a user makes them once), so they are made here.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    cifar10_pickles(run / "data", n_train=1024, n_test=192)
    (run / "logs").mkdir(exist_ok=True)
    (run / "checkpoints").mkdir(exist_ok=True)
