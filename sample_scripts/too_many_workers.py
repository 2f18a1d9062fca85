"""A CIFAR-style trainer that starts four DataLoader workers per CPU core "because more is faster".

Planted: num_workers = 4 * os.cpu_count(), on top of torch's own intra-op
threads in the training process (one per core by default). The workers and
the math threads all want CPU time, so they preempt each other: the model's
math gets slower and the extra workers buy nothing. Fix: about one worker per
spare core, and torch.set_num_threads() for the cores left to training.
"""

TRAINPROBE_SAMPLE = {
    "plants": "num_workers = 4 x cores on top of torch's intra-op threads: CPU oversubscribed",
    "verdict": {"cpu": "host", "gpu": None},
    "findings": {"cpu": ["cpu-oversubscription"], "gpu": ["cpu-oversubscription"]},
    "allow": {"cpu": [], "gpu": ["amp-not-used", "tf32-disabled", "cudnn-benchmark-off",
                                 "small-batch-underused-gpu", "launch-bound-small-ops"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import os

import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

from _data import fake_cifar10  # stands in for torchvision.datasets.CIFAR10(download=True)


class CIFAR(Dataset):
    def __init__(self, images, labels, transform):
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(Image.fromarray(self.images[i])), self.labels[i]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=128)
    # PLANTED: far more busy processes than cores, plus torch's threads in this process.
    parser.add_argument("--num-workers", type=int, default=4 * (os.cpu_count() or 1))
    parser.add_argument("--train-size", type=int, default=6144)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    images, labels = fake_cifar10(args.train_size)
    augment = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26)),
    ])
    train_loader = DataLoader(CIFAR(images, labels, augment), batch_size=args.batch_size, shuffle=True,
                              num_workers=args.num_workers, persistent_workers=args.num_workers > 0,
                              pin_memory=device == "cuda")

    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
