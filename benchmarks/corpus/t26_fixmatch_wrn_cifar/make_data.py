"""CIFAR-10 stand-in for kekmodel/FixMatch-pytorch's train.py (--dataset cifar10).

train.py runs from the repository root and calls dataset/cifar.py's get_cifar10(args, './data'), which reads
./data/cifar-10-batches-py with torchvision's CIFAR10 (data_batch_1..5, test_batch, batches.meta; the recipe's edit
skips torchvision's md5 check, which generated files cannot pass). fakedata.cifar10_pickles writes that folder in
CIFAR-10's own pickle format: 50000 training images as in CIFAR-10 (smooth random 32x32 colour pictures, random
labels ~5000 a class, seeded), so x_u_split can draw 400 labelled images a class for --num-labeled 4000 and uses all
50000 as the unlabelled set; the test batch is SHRUNK to 1000 images (CIFAR-10 has 10000) so that the one
evaluation pass after each epoch stays short on 2 CPU cores.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=50000, n_test=1000, seed=26)
