"""Fake CIFAR-100 for weiaicunzai/pytorch-cifar100's train.py.

utils.get_training_dataloader / get_test_dataloader read torchvision's CIFAR100(root='./data', download=True),
which finds RUN/data/cifar-100-python (torchvision's python-pickle layout: `train`, `test`, `meta`; the recipe's
edit on train.py's `import torchvision` line skips torchvision's md5 check, which would otherwise try to download
over our generated files). 2560 train / 500 test 32x32 smooth-noise images, random fine labels 0-99: 20 steps of
128, 4 test batches of 128 (the last one 116).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar100_pickles  # noqa: E402

if __name__ == "__main__":
    cifar100_pickles(Path(sys.argv[1]) / "data", n_train=2560, n_test=500)
