"""Fake Fashion-MNIST for optuna/optuna-examples' pytorch/pytorch_simple.py.

The script builds torchvision's FashionMNIST(DIR, train=True, download=True) with DIR = os.getcwd() (the recipe's cwd
is the run folder's pytorch/), so torchvision finds the uncompressed idx files in RUN/pytorch/FashionMNIST/raw and
downloads nothing. 12800 train / 2560 test 28x28 blob+noise images (Fashion-MNIST has 60000 / 10000), random labels:
the script reads only the first 30 shuffled batches of 128 per epoch (N_TRAIN_EXAMPLES = 3840) and 10 validation
batches (N_VALID_EXAMPLES = 1280), so the smaller files change no step.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "pytorch" / "FashionMNIST" / "raw", n_train=12800, n_test=2560)
