"""Fake CIFAR-10 for abarankab/DDPM's scripts/train_cifar.py.

The script builds torchvision.datasets.CIFAR10(root='./cifar_train', train=True, download=True) and
CIFAR10(root='./cifar_test', train=False, download=True), so each root gets torchvision's
cifar-10-batches-py folder (5 pickled train batches, test_batch, batches.meta) with CIFAR-10's sizes:
50,000 train and 10,000 test 32x32 RGB images (smooth random images, random labels), seeded. The recipe's
one-line edit turns torchvision's md5 checks off (our files are generated; it would download otherwise).
Both roots hold the whole set, as two downloads would.
"""
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    cifar10_pickles(run / "cifar_train", n_train=50_000, n_test=10_000, seed=0)
    shutil.copytree(run / "cifar_train", run / "cifar_test", dirs_exist_ok=True)
