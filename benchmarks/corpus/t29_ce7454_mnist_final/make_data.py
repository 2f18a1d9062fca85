"""MNIST stand-in for xbresson/CE7454_2019's codes/labs_lecture05/lab05_final/final_demo.ipynb.

The notebook runs from its own folder and calls utils.check_mnist_dataset_exists('../../data/'), which downloads
nothing when the four files codes/data/mnist/{train_data,train_label,test_data,test_label}.pt exist; it then
torch.load()s them. The course writes them from torchvision's MNIST (ToTensor): train_data a float32 tensor
60000 x 28 x 28 in [0, 1], train_label an int64 tensor of 60000 labels, test_data 10000 x 28 x 28, test_label 10000.
The loops hard-code these sizes (range(0, 60000, bs), range(0, 10000, bs)), so the real counts are kept.
This writes the same four files: a few bright blurred blobs on a dark noisy ground (MNIST-like statistics, from
../fakedata.py), labels 0-9 uniform, each class with its own faint stroke so that the model has something to learn.
Seeded. Usage: python make_data.py RUN
"""
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402

N_TRAIN, N_TEST, SIZE = 60000, 10000, 28


def digits(n: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    labels = rng.integers(0, 10, n)
    img = _blob_digits(n, SIZE, rng).astype(np.float32)
    for c in range(10):                       # a class-dependent bar: row 4 + 2c, columns 6-21
        img[labels == c, 4 + 2 * c, 6:22] = np.maximum(img[labels == c, 4 + 2 * c, 6:22], 200)
    data = torch.from_numpy(img / 255.0).float().contiguous()
    return data, torch.from_numpy(labels).long()


if __name__ == "__main__":
    run = Path(sys.argv[1])
    out = run / "codes" / "data" / "mnist"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(29)
    train_data, train_label = digits(N_TRAIN, rng)
    test_data, test_label = digits(N_TEST, rng)
    torch.save(train_data, out / "train_data.pt")
    torch.save(train_label, out / "train_label.pt")
    torch.save(test_data, out / "test_data.pt")
    torch.save(test_label, out / "test_label.pt")
