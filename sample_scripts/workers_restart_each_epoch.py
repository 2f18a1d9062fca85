"""Many short epochs with DataLoader workers that are started afresh for every epoch.

Planted: persistent_workers=False (the default). Every `for batch in loader`
starts new worker processes and, with the "spawn" start method (the default
on Windows and macOS, used here explicitly), each one re-imports torch and
this script before its first batch. With short epochs that start-up is a
large share of the run. Fix: persistent_workers=True.
"""

TRAINPROBE_SAMPLE = {
    "plants": "spawned DataLoader workers restart at every short epoch (persistent_workers=False)",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["dataloader-workers-restart-each-epoch"],
                 "gpu": ["dataloader-workers-restart-each-epoch"]},
    "allow": {"cpu": ["launch-bound-small-ops"], "gpu": ["amp-not-used", "tf32-disabled", "small-batch-underused-gpu",
                                 "launch-bound-small-ops"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Features(Dataset):
    def __init__(self, n, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, 128, generator=g)
        self.y = (self.x[:, :10]).argmax(1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--num-workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))  # one per spare core
    parser.add_argument("--train-size", type=int, default=640)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    # PLANTED: new workers every epoch. multiprocessing_context="spawn" is what Windows and
    # macOS use by default; persistent_workers is left at its default, False.
    train_loader = DataLoader(Features(args.train_size), batch_size=args.batch_size, shuffle=True,
                              num_workers=args.num_workers, pin_memory=device == "cuda",
                              multiprocessing_context="spawn" if args.num_workers > 0 else None)

    model = nn.Sequential(nn.Linear(128, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:  # a new set of worker processes starts here each epoch
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
