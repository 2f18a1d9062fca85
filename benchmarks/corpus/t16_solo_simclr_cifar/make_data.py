"""Fake CIFAR-10 for solo-learn's main_pretrain.py (SimCLR, scripts/pretrain/cifar/simclr.yaml).

The config reads data.dataset=cifar10 from data.train_path="./datasets" (and the online linear classifier's
validation set from data.val_path, which the args point at ./datasets too): torchvision's CIFAR10 finds
RUN/datasets/cifar-10-batches-py in its pickle format (fakedata.cifar10_pickles: smooth random 32x32 images,
random labels, seeded). N_TRAIN training images (batch 256, drop_last: 6 steps an epoch) and N_TEST test images
(one validation batch) instead of 50000 / 10000. The edits make torchvision skip its md5 check of the pickles.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

N_TRAIN = 1536
N_TEST = 256

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "datasets", N_TRAIN, N_TEST, seed=0)
