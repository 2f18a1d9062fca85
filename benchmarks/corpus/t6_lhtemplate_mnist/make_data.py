"""Fake MNIST for ashleve/lightning-hydra-template's src/train.py (default experiment: data=mnist, model=mnist).

configs/paths/default.yaml puts data_dir at ${PROJECT_ROOT}/data/ (PROJECT_ROOT = the run folder, found by
rootutils from .project-root), so MNISTDataModule's torchvision MNIST(data_dir, download=True) finds RUN/data/MNIST/raw:
uncompressed idx files, 60000 train / 10000 test 28x28 blob+noise images, random labels. The full MNIST sizes are
needed: the data module concatenates train and test (70000) and random_splits them [55000, 5000, 10000], so an
epoch is ceil(55000 / 128) = 430 steps, validation 40 batches, test 79 batches.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=60000, n_test=10000)
