"""Training with a heavy PIL augmentation pipeline that the DataLoader workers cannot keep up with.

Planted: the images are already in memory (no decoding, no disk), but each one
goes through RandomResizedCrop, rotation, colour jitter and a Gaussian blur in
PIL on the CPU. The workers (one per spare core) are saturated by augmentation while the small
model waits. Fixes: lighter or cheaper augmentations, augmentations on the GPU
on whole batches (torchvision.transforms.v2 on tensors), more CPU cores.
"""

TRAINPROBE_SAMPLE = {
    "plants": "CPU-heavy per-image PIL augmentation saturates the DataLoader workers",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["workers-augment-bound"], "gpu": ["workers-augment-bound"]},
    "allow": {"cpu": ["dataloader-too-few-workers", "cpu-oversubscription"],
              "gpu": ["dataloader-too-few-workers", "amp-not-used", "tf32-disabled",
                      "cudnn-benchmark-off", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse
import os

import numpy as np
import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class InMemoryImages(Dataset):
    """256x256 RGB images held as one uint8 array (as after loading a small data set once)."""

    def __init__(self, n, transform, seed=0):
        rng = np.random.default_rng(seed)
        self.images = rng.integers(0, 256, size=(n, 256, 256, 3), dtype=np.uint8)
        self.labels = rng.integers(0, 10, size=n)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(Image.fromarray(self.images[i])), int(self.labels[i])


# PLANTED: a pipeline copied from a large-scale recipe, all of it per image in PIL.
AUGMENT = transforms.Compose([
    transforms.RandomResizedCrop(128, antialias=True),
    transforms.RandomHorizontalFlip(),
    transforms.RandomRotation(15),
    transforms.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1),
    transforms.GaussianBlur(9, sigma=(0.1, 2.0)),
    transforms.ToTensor(),
])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--num-workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))  # one per spare core
    parser.add_argument("--train-size", type=int, default=256)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader = DataLoader(InMemoryImages(args.train_size, AUGMENT), batch_size=args.batch_size,
                              shuffle=True, num_workers=args.num_workers,
                              persistent_workers=args.num_workers > 0, pin_memory=device == "cuda")

    model = nn.Sequential(  # a small model: patchify stem (4x4, stride 4), one conv, a linear head
        nn.Conv2d(3, 16, 4, stride=4), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
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
