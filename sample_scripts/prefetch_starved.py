"""A data set with a few huge images: enough workers on average, but the queue runs dry on slow batches.

Planted: about one image in 96 is a 4096x4096 "panorama" among 96x96
thumbnails, so a batch's cost varies a lot. Two workers are plenty on average
and mostly idle, but with prefetch_factor=1 the queue holds two batches: when
a worker hits a slow batch, the loop drains the queue and then waits, a few
steps wait about 100 ms each. Fix: a deeper queue (prefetch_factor=5 here,
which trainprobe computes from the stalls it measured), or pre-resize the
outliers once.
"""

TRAINPROBE_SAMPLE = {
    "plants": "batch cost varies (rare huge images) and prefetch_factor=1 leaves no queue to absorb it",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["dataloader-prefetch-starved"], "gpu": ["dataloader-prefetch-starved"]},
    "allow": {"cpu": [], "gpu": ["amp-not-used", "tf32-disabled", "cudnn-benchmark-off",
                                 "small-batch-underused-gpu"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse

import numpy as np
import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class MixedSizeImages(Dataset):
    """Mostly 96x96 images; every `big_every`-th one is 4096x4096 (held in memory as uint8)."""

    def __init__(self, n, big_every=96, seed=0):
        rng = np.random.default_rng(seed)
        big = rng.integers(0, 256, size=(4096, 4096, 3), dtype=np.uint8)
        small = rng.integers(0, 256, size=(96, 96, 3), dtype=np.uint8)
        self.images = [big if i % big_every == 0 else small for i in range(n)]
        self.labels = rng.integers(0, 10, size=n)
        self.transform = transforms.Compose([transforms.Resize((64, 64), antialias=True), transforms.ToTensor()])

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(Image.fromarray(self.images[i])), int(self.labels[i])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--prefetch-factor", type=int, default=1)  # PLANTED: a one-batch queue per worker
    parser.add_argument("--train-size", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    # One core for the loop, the rest for the workers: this sample plants only the queue depth.
    torch.set_num_threads(1)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    workers = args.num_workers > 0
    train_loader = DataLoader(MixedSizeImages(args.train_size), batch_size=args.batch_size, shuffle=True,
                              num_workers=args.num_workers, persistent_workers=workers,
                              prefetch_factor=args.prefetch_factor if workers else None,
                              pin_memory=device == "cuda")

    model = nn.Sequential(  # a small model: a 2x2 stride-2 stem, one conv, a linear head
        nn.Conv2d(3, 32, 2, stride=2), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for images, labels in train_loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
