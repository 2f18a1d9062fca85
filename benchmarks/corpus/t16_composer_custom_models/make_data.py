"""MNIST stand-in for mosaicml/composer's examples/custom_models.py (run with the corpus-t16-A python).

The script reads torchvision's datasets.MNIST(root, train=..., transform=ToTensor(), download=True); the recipe's
one-line edit points root at ./datasets/ (the published '/datasets/' is outside the run folder). torchvision finds
RUN/datasets/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte already there and downloads nothing.
The published sizes: 60000 training and 10000 test images (28x28 uint8 blob digits with noise, random labels 0-9,
fakedata.mnist_idx, seeded): 235 steps of 256 per epoch (the last one of 96), 3 epochs, 40 evaluation batches per epoch.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "datasets" / "MNIST" / "raw", 60000, 10000, seed=0)
