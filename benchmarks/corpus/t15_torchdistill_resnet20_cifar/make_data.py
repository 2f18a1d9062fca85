"""Fake CIFAR-10 for torchdistill's examples/torchvision/image_classification.py with
configs/sample/cifar10/ce/resnet20-final_run.yaml.

The config's dataset root is '~/datasets/cifar10'; the recipe's edit points HOME at the run folder, so torchvision's
CIFAR10 reads RUN/datasets/cifar10/cifar-10-batches-py (python-pickle layout; a second edit skips torchvision's md5
check, which would otherwise try to download over our generated files). 1920 train / 100 test 32x32 smooth-noise
images, random labels: 30 training steps of 64, 1 validation batch of 100, then the config's final test over the
100 test images with batch size 1.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402

if __name__ == "__main__":
    cifar10_pickles(Path(sys.argv[1]) / "datasets" / "cifar10", n_train=1920, n_test=100)
