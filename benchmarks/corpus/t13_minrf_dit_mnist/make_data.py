"""Fake MNIST for cloneofsimo/minRF's rf.py (MNIST mode).

The script builds torchvision's MNIST(root="./data", train=True, download=True): torchvision finds the uncompressed
idx files in RUN/data/MNIST/raw and downloads nothing. 2048 train / 1000 test (unused) 28x28 blob images, random
labels: 2048 / 64 = 32 training steps (batch 64, see the recipe) (drop_last) in the one epoch. The script saves its sample GIF/PNG into
./contents (a folder of the repository, where it keeps its README pictures), so that folder is made here.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    mnist_idx(run / "data" / "MNIST" / "raw", n_train=2048, n_test=1000)
    (run / "contents").mkdir(parents=True, exist_ok=True)
