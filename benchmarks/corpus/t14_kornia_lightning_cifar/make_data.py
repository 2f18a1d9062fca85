"""Fake CIFAR-10 for kornia/tutorials' nbs/data_augmentation_kornia_lightning.ipynb.

The notebook builds torchvision's CIFAR10(os.getcwd(), download=True) from its own folder (the recipe's cwd, nbs/), so
the data goes to RUN/nbs/cifar-10-batches-py (torchvision's python-pickle layout; the recipe's edit on the
`from torchvision.datasets import CIFAR10` line skips torchvision's md5 checks, which would otherwise try to download
over our generated files). 8000 train / 2000 test (CIFAR-10 has 50000 / 10000) 32x32 smooth-noise images, random labels, so
250 training steps of 32, 250 validation batches of 32 (the notebook validates on the training set) and 125 test
batches of 16.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "nbs", n_train=8000, n_test=2000)
