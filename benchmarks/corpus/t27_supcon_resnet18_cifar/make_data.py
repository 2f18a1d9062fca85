"""CIFAR-10 stand-in for HobbitLong/SupContrast's main_supcon.py (--dataset cifar10, the default).

main_supcon.py runs from the repository root with --data_folder unset, so it reads ./datasets/cifar-10-batches-py with
torchvision's CIFAR10(download=True) (data_batch_1..5, test_batch, batches.meta; the recipe's edit skips torchvision's
md5 check, which generated files cannot pass, so download=True finds the folder "already downloaded" and never touches
the network). fakedata.cifar10_pickles writes that folder in CIFAR-10's own pickle format: smooth random 32x32 colour
pictures with random labels (seeded). The training set is SHRUNK to 640 images (CIFAR-10 has 50000), i.e. 20 steps of
--batch_size 32 in the one epoch the recipe runs; the test batch (not read by main_supcon.py) holds 100 images.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "datasets", n_train=640, n_test=100, seed=27)
