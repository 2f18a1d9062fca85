"""A generated stand-in for fetch_openml('mnist_784') in skorch's notebooks/MNIST.ipynb.

The notebook downloads MNIST from OpenML (fetch_openml(..., cache=False)); the recipe's one edit loads
RUN/mnist_784.npz instead, into a sklearn Bunch with the two fields the notebook reads, in OpenML's types:
`data` float64 (N, 784) pixel values 0-255, `target` one-character strings '0'..'9'. N = 5000 (a fourteenth of
MNIST's 70000): 28x28 blob images (fakedata's MNIST-like writer) and random labels.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402

N = 5_000

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    images = _blob_digits(N, 28, rng)
    target = rng.integers(0, 10, N).astype(str)
    np.savez(Path(sys.argv[1]) / "mnist_784.npz", data=images.reshape(N, 784).astype(np.float64), target=target)
