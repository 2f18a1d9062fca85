"""Fake CIFAR-10 for ritheshkumar95/pytorch-vqvae's vqvae.py (--dataset cifar10 --data-folder data).

torchvision's CIFAR10("data", download=True) finds RUN/data/cifar-10-batches-py (fakedata's cifar10_pickles: smooth
32x32 colour images, random labels); the recipe's edit turns off torchvision's md5 check. 1280 training images ->
10 steps of the default batch 128; 512 test images -> 4 validation batches (drop_last) + the 16 fixed images.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=1280, n_test=512)
