"""Fake MNIST for rasbt/stat453-deep-learning-ss21's L09/code/mlp-softmax-pyscripts/train_model.py.

helper.get_dataloaders_mnist reads torchvision's MNIST(root='data', download=True): it finds RUN/data/MNIST/raw,
uncompressed idx files (fakedata's blob images, random labels). The training set must have the full 60000 images:
the helper splits it with hard-coded indices (train 0-53999, validation 54000-59999 for validation fraction 0.1).
The test set is 2000 images instead of 10000 (read once, after training).

It also writes RUN/settings_2_epochs.yaml (the recipe's --settings_path): the folder's settings.yaml (placed by
prepare.py from the repository) with `num epochs: 10` -> `num epochs: 2`, every other setting as published.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    mnist_idx(run / "data" / "MNIST" / "raw", n_train=60000, n_test=2000)
    settings = (run / "settings.yaml").read_text()
    assert "num epochs: 10\n" in settings, "settings.yaml is not the published one"
    (run / "settings_2_epochs.yaml").write_text(settings.replace("num epochs: 10\n", "num epochs: 2\n"))
