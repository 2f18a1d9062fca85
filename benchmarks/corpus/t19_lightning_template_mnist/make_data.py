"""Fake MNIST for Lightning-AI/deep-learning-project-template's project/lit_image_classifier.py.

The script runs from project/ and calls torchvision's MNIST('', train=..., download=True): with the uncompressed idx
files already in RUN/project/MNIST/raw, torchvision finds them and downloads nothing. The script hard-codes
random_split(dataset, [55000, 5000]), so the training file must hold exactly 60000 images (the real size); the test
file holds 2000 instead of 10000 (only trainer.test() reads it). Blob+noise 28x28 digits, random labels (seeded).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

N_TRAIN = 60000   # fixed by the script's random_split(dataset, [55000, 5000])
N_TEST = 2000

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "project" / "MNIST" / "raw", N_TRAIN, N_TEST, seed=0)
