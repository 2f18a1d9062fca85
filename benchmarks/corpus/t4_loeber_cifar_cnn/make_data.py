"""Fake CIFAR-10 for patrickloeber/pytorchTutorial's 14_cnn.py (CIFAR10(root='./data', download=True)).

torchvision's python-pickle layout in RUN/data/cifar-10-batches-py: 10000 train images (5 batches of 2000) and
1000 test images of smooth random 32x32 colour fields, random labels. With the script's batch_size = 4 that is
2500 steps per epoch, 12500 steps in its 5 epochs, then 250 test batches. The recipe's edit on `import torchvision`
skips torchvision's md5 checks (our files are generated), so download=True finds them and downloads nothing.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "data", n_train=10000, n_test=1000)
