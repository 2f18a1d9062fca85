"""Fake CIFAR-10 for bentrevett/pytorch-image-classification's 3_alexnet.ipynb (ROOT = '.data', from the notebook's folder).

torchvision's python-pickle layout in RUN/.data/cifar-10-batches-py: 5000 train images (5 batches) and 1000 test
images of smooth random 32x32 colour fields, random labels. The notebook keeps 10% of train for validation:
4500 train (18 batches of 256, the last one short) / 500 validation / 1000 test. The notebook's cell 1 edit skips
torchvision's md5 check (see recipe.toml).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / ".data", n_train=5000, n_test=1000)
