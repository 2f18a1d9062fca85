"""Fake CIFAR-10 for davda54/sam's example/train.py (WRN + SAM).

The script runs from RUN/example and reads torchvision's CIFAR10 twice: root='./cifar' (train set, once, with batch 1,
to compute the per-channel mean/std) and root='./data' (the train and test sets it trains and evaluates on). Both
roots get the same generated files in torchvision's python-pickle layout (RUN/example/cifar/cifar-10-batches-py and
RUN/example/data/cifar-10-batches-py; RUN/example/data is also the repository's `data` package, which is fine). The
recipe's edit skips torchvision's md5 check. 1280 train / 256 test 32x32 smooth-noise images, random labels:
40 training steps of 32, 8 test batches of 32.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1]) / "example"
    for root in ("cifar", "data"):
        cifar10_pickles(run / root, n_train=1280, n_test=256)
