"""MNIST stand-in for KevinMusgrave/pytorch-metric-learning's examples/notebooks/TripletMarginLossMNIST.ipynb
(run with the corpus-t16-A python).

The notebook reads datasets.MNIST(".", train=True, download=True, transform=...) from its own folder (the recipe's
cwd, examples/notebooks); torchvision finds RUN/examples/notebooks/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte
already there and downloads nothing. 20480 training and 4096 test images (28x28 uint8 blob digits with noise, random
labels 0-9, fakedata.mnist_idx, seeded) instead of 60000 / 10000: 80 steps of 256 in the one epoch, then the
notebook's test() embeds both sets (96 batches of 256) and runs faiss k-NN.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "examples" / "notebooks" / "MNIST" / "raw", 20480, 4096, seed=0)
