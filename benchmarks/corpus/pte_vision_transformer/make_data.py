"""Fake CIFAR-10 for pytorch/examples vision_transformer/main.py: RUN/dataset/cifar-10-batches-py.

torchvision's pickle layout; 4000 train / 800 test random smooth 32x32 images (multiples of
the script's batch of 4, which its class token needs), random labels.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "dataset", n_train=4000, n_test=800)
