"""CIFAR-10 stand-in for yandexdataschool/Practical_DL's week03_convnets/seminar_pytorch.ipynb.

The notebook runs in week03_convnets/ and reads ./cifar_data twice: cifar.py's load_cifar10("cifar_data") unpickles
cifar_data/cifar-10-batches-py/data_batch_1..5 and test_batch (it downloads the tarball only when one is missing),
and torchvision's CIFAR10("./cifar_data/", train=True) reads the same folder (the recipe's edit skips torchvision's
md5 check, which generated files cannot pass). fakedata.cifar10_pickles writes that folder in CIFAR-10's own
format with CIFAR-10's own sizes, 50000 training + 10000 test images (smooth random 32x32 colour pictures, random
labels, seeded): cifar.py keeps 80% (40000) for training = 800 steps of 50 per epoch, and 10000 for validation.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "week03_convnets" / "cifar_data", n_train=50000, n_test=10000)
