"""A small CNN trained on 32x32 images in batches of 4.

Planted: each step calls a few hundred ops, and with four images each op does
little arithmetic, so the fixed cost of calling them (Python, the dispatcher,
autograd's bookkeeping) is a large part of every step. The ops themselves are
not tiny (convolutions over 4 images take tens of microseconds), so this is
not the dispatch-bound pattern of tiny_batch_launch_bound.py; the fix is the
same first step: larger batches.
"""

TRAINPROBE_SAMPLE = {
    "plants": "batch size 4 on a small CNN: the fixed cost of a step's ops outweighs their arithmetic",
    "verdict": {"cpu": "launch", "gpu": None},
    "findings": {"cpu": ["small-batch-overhead"], "gpu": ["small-batch-underused-gpu"]},
    "allow": {"cpu": ["launch-bound-small-ops", "host-overhead-in-loop"],
              "gpu": ["launch-bound-small-ops", "optimizer-not-fused"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 8 * 8, 64), nn.ReLU(), nn.Linear(64, 10),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4)  # PLANTED: four images per step
    parser.add_argument("--train-size", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(0)
    images = torch.randn(args.train_size, 3, 32, 32, generator=g)
    labels = torch.randint(0, 10, (args.train_size,), generator=g)
    train_loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)

    model = make_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
