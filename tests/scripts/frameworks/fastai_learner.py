"""A fastai Learner trained with fit_one_cycle on a Dataset that builds each sample in Python
(a small image made from noise and normalized per sample), batches of 16, no workers: fastai's own
DataLoader, which hands torch's loader iterators an object of its own instead of a torch DataLoader.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs fastai. Random data.
"""

import torch
import torch.nn as nn
import fastai.callback.all  # noqa: F401  fit_one_cycle and the progress bar, as `from fastai.vision.all import *` brings them
from fastai.data.core import DataLoaders
from fastai.learner import Learner
from fastai.losses import CrossEntropyLossFlat
from fastai.metrics import accuracy
from torch.utils.data import Dataset


class NoisyShapes(Dataset):
    """Each sample made when asked: a 3x32x32 image of noise around its class's level."""

    def __init__(self, n: int, seed: int) -> None:
        self.labels = torch.randint(0, 4, (n,), generator=torch.Generator().manual_seed(seed))

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i):
        label = int(self.labels[i])
        image = torch.randn(3, 32, 32) * 0.5 + label
        for channel in range(3):  # per-sample, per-channel normalization in Python
            image[channel] = (image[channel] - image[channel].mean()) / (image[channel].std() + 1e-6)
        return image, label


def main():
    torch.manual_seed(0)
    dls = DataLoaders.from_dsets(NoisyShapes(4096, 0), NoisyShapes(512, 1), bs=16, num_workers=0, device="cpu")
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(32, 4))
    learn = Learner(dls, model, loss_func=CrossEntropyLossFlat(), metrics=accuracy)
    learn.fit_one_cycle(2, 3e-3)


if __name__ == "__main__":
    main()
