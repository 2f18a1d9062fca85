"""Fake MNIST for pyro's examples/vae/vae.py.

The script's setup_data_loaders (utils/mnist_cached.py) builds pyro.contrib.examples.util.MNIST (torchvision's MNIST
with an extra mirror) with root = get_data_directory(utils/mnist_cached.py) = RUN/utils/.data and download=True,
which finds RUN/utils/.data/MNISTCached/raw (torchvision names the raw folder after the class, here the script's
MNISTCached): uncompressed idx files, 20000 train / 2000 test 28x28 blob images, random
labels. MNISTCached scales the whole set to [0, 1] floats once; in "unsup" mode (sup_num=None) all 20000 training
images are used, so an epoch is ceil(20000 / 256) = 79 steps.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "utils" / ".data" / "MNISTCached" / "raw", n_train=20000, n_test=2000)
