"""Fake MNIST for Jackson-Kang/Pytorch-VAE-tutorial's 01_Variational_AutoEncoder.ipynb.

The notebook reads MNIST('~/datasets', download=True): the recipe runs it with HOME set to the run folder (HOME=".",
relative to the cwd), so torchvision finds RUN/datasets/MNIST/raw: uncompressed idx files (fakedata's blob images,
random labels), 20000 train / 1000 test 28x28 images instead of 60000 / 10000. Both sizes must stay multiples of the
notebook's batch_size 100 (its loops reshape every batch with x.view(batch_size, x_dim), no drop_last): 200 steps an
epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "datasets" / "MNIST" / "raw", n_train=20000, n_test=1000)
