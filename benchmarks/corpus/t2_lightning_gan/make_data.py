"""Fake MNIST for Lightning's examples/pytorch/domain_templates/generative_adversarial_net.py.

The script's MNISTDataModule (lightning.pytorch.demos) calls torchvision's MNIST("./data", download=True),
which finds RUN/data/MNIST/raw: uncompressed idx files, 20000 train / 2000 test 28x28 blob images, random
labels. The data module keeps 5000 training images aside for validation (unused: the GAN has no
validation_step), so an epoch is (20000 - 5000) // 32 = 468 steps.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    mnist_idx(Path(sys.argv[1]) / "data" / "MNIST" / "raw", n_train=20000, n_test=2000)
