"""Fake MNIST for sksq96/pytorch-vae's vae.ipynb (datasets.MNIST(root='./data', download=False), from the notebook's folder).

Uncompressed idx files in RUN/data/MNIST/raw: 5000 train / 1000 test 28x28 blob images, random labels (the notebook
uses only the training split): 40 batches of 128 per epoch (the last one 8 images), 10 epochs = 400 steps. Also makes the empty
RUN/reconstructed folder that the notebook's training cell saves its reconstructions into (the author created it by
hand; vae-cnn.ipynb has a `!mkdir reconstructed` cell for it).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    mnist_idx(run / "data" / "MNIST" / "raw", n_train=5000, n_test=1000)
    (run / "reconstructed").mkdir(parents=True, exist_ok=True)
