"""Fake CIFAR-10 for open-mmlab/mmengine's examples/distributed_training.py.

The script reads torchvision's CIFAR10('data/cifar10', download=True) from the folder it runs in, which finds
RUN/data/cifar10/cifar-10-batches-py (torchvision's python-pickle layout; the recipe's edit on the
`import torchvision` line skips torchvision's md5 check, which would otherwise try to download over our generated
files). 960 train / 320 test 32x32 smooth-noise images, random labels: per epoch 30 training steps of 32 and
10 validation batches of 32 (max_epochs=2 is in the script).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data" / "cifar10", n_train=960, n_test=320)
