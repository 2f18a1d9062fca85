"""Fashion-MNIST stand-in for PacktPublishing/Modern-Computer-Vision-with-PyTorch's
Chapter03/Steps_to_build_a_neural_network_on_FashionMNIST.ipynb.

The notebook calls datasets.FashionMNIST(data_folder, download=True, train=True) with data_folder '~/data/FMNIST';
the recipe's one-line edit points data_folder at './data/FMNIST' (inside the run folder, the notebook's folder
Chapter03 being the cwd). torchvision finds RUN/Chapter03/data/FMNIST/FashionMNIST/raw/{train,t10k}-{images-idx3,
labels-idx1}-ubyte (uncompressed idx files) and does not download. Fashion-MNIST's real sizes, 60000 train / 10000
test 28x28 images (fakedata.mnist_idx: bright blobs on a dark noisy ground, seeded), random labels 0-9: the notebook
trains on all 60000 (1875 steps of 32 per epoch), as published.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "Chapter03" / "data" / "FMNIST" / "FashionMNIST" / "raw", 60000, 10000, seed=0)
