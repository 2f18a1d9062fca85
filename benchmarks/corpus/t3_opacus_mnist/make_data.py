"""Fake MNIST for opacus' examples/mnist.py (run with --data-root data).

torchvision's MNIST("data", download=True) finds RUN/data/MNIST/raw: uncompressed idx files, 20000 train / 2000
test 28x28 blob images, random labels. Opacus' make_private swaps the DataLoader for a Poisson-sampled one with
expected batch 64 (sample rate 64/20000), so one epoch is 20000 // 64 = 312 steps of varying size (~64).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=20000, n_test=2000)
