"""A first CIFAR-10 classifier as beginners write it: batches of 4 images, made by two workers.

Planted: the images are already in memory and turning one into a normalized
tensor costs microseconds, yet two DataLoader workers make the batches of 4.
Every batch then crosses from a worker to the training loop through shared
memory (the worker pickles the tensors' handles, the loop unpickles them and
maps the memory), a fixed cost per batch that is larger than making the batch.
With four images per step, that handoff and the fixed cost of calling the
small network's ops are most of every step. Fixes: a larger batch (with the
learning rate scaled), which pays both once for many more samples; or, with
batches this small, num_workers=0.
"""

TRAINPROBE_SAMPLE = {
    "plants": "batches of 4 in-memory images made by 2 workers: the per-batch handoff and per-step costs outweigh the work",
    "verdict": {"cpu": "launch", "gpu": None},
    "findings": {"cpu": ["small-batch-overhead", "worker-handoff-outweighs-batch"],
                 "gpu": ["small-batch-underused-gpu"]},
    # Also true of tiny batches of a small model: its ops are small, and the queue of batches can run dry.
    "allow": {"cpu": ["launch-bound-small-ops", "dataloader-prefetch-starved"],
              "gpu": ["launch-bound-small-ops", "worker-handoff-outweighs-batch", "dataloader-pin-memory-off",
                      "optimizer-not-fused"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from _data import fake_cifar10  # stands in for torchvision.datasets.CIFAR10(download=True)

MEAN, STD = 0.5, 0.5


class InMemoryImages(Dataset):
    """uint8 HWC images held in memory, turned into normalized CHW tensors one at a time."""

    def __init__(self, images, labels):
        self.images, self.labels = torch.from_numpy(images), torch.from_numpy(labels)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = self.images[i].permute(2, 0, 1).float().div_(255)
        return (image - MEAN) / STD, self.labels[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4)  # PLANTED: four images per step...
    parser.add_argument("--num-workers", type=int, default=2)  # ...each handed over by a worker
    parser.add_argument("--train-size", type=int, default=20000)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    # One torch thread: with two workers on a 2-core machine, the model's two default threads would
    # fight them for the cores (cpu-oversubscription's pattern), which is not what this sample plants.
    torch.set_num_threads(1)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    images, labels = fake_cifar10(args.train_size)
    train_loader = DataLoader(InMemoryImages(images, labels), batch_size=args.batch_size, shuffle=True,
                              num_workers=args.num_workers)

    model = Net().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))

    step = 0
    for epoch in range(args.epochs):
        running_loss = 0.0
        for i, (inputs, targets) in enumerate(train_loader):
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running_loss += loss.item()
            if i % 2000 == 1999:
                print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 2000:.3f}")
                running_loss = 0.0
            step += 1
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
