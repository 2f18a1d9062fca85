"""Fake MNIST for rasbt/machine-learning-book's ch17/ch17_part1.py (MNIST(root='./', train=True, download=False)).

RUN/MNIST/raw: uncompressed idx files (torchvision finds them without downloading), 10000 train / 1000 test 28x28
blob images, random labels. 10000 is the least the script accepts: after training it draws one batch of 10000 with
drop_last=True (whole_dl) for its MMD score. Batch 64, drop_last: 156 steps per epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "MNIST" / "raw", n_train=10000, n_test=1000)
