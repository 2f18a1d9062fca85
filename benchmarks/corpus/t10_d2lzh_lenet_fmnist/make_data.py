"""Fake Fashion-MNIST for ShusenTang/Dive-into-DL-PyTorch's code/chapter05_CNN/5.5_lenet.ipynb.

The notebook calls d2lzh_pytorch's load_data_fashion_mnist, which builds torchvision's FashionMNIST(root,
download=True); the recipe's edit passes root='../../data/FashionMNIST' (from the notebook's folder: RUN/data/FashionMNIST)
instead of the default '~/Datasets/FashionMNIST', so torchvision finds the uncompressed idx files in
RUN/data/FashionMNIST/FashionMNIST/raw and downloads nothing. 12800 train / 2560 test 28x28 blob+noise images
(Fashion-MNIST has 60000 / 10000), random labels: 50 steps of 256 per epoch (5 epochs: 250 steps), 10 test batches
of 256 after each epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "FashionMNIST" / "FashionMNIST" / "raw", n_train=12800, n_test=2560)
