"""Training whose DataLoader workers wait on a remote service: in-memory images, one feature lookup each.

Planted: each __getitem__ asks a "feature service" for the sample's label
features; a time.sleep of --latency-ms stands in for the round trip (an HTTP
call, a database query, a lock shared with another process). No file is read:
the images are in memory. The two workers spend their time waiting, not
computing and not reading, so the loop waits for batches while the CPU is
idle. Faster storage or cheaper transforms would change nothing. Fixes: cache
or batch the lookups, or run more workers than cores (a waiting worker needs no
core) with a deeper prefetch_factor.
"""

TRAINPROBE_SAMPLE = {
    "plants": "each sample waits on a (simulated) remote feature service; workers idle, no file read",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["dataloader-workers-waiting"], "gpu": ["dataloader-workers-waiting"]},
    "allow": {"cpu": [],
              "gpu": ["amp-not-used", "tf32-disabled", "cudnn-benchmark-off", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class ImagesWithRemoteFeatures(Dataset):
    def __init__(self, n, latency_s):
        g = torch.Generator().manual_seed(0)
        self.images = torch.rand(n, 3, 32, 32, generator=g)
        self.labels = torch.randint(0, 10, (n,), generator=g)
        self.latency_s = latency_s

    def __len__(self):
        return len(self.images)

    def lookup_features(self, i):
        time.sleep(self.latency_s)  # PLANTED: stand-in for one round trip to a feature service per sample
        return self.labels[i]

    def __getitem__(self, i):
        return self.images[i], self.lookup_features(i)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--latency-ms", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader = DataLoader(ImagesWithRemoteFeatures(args.samples, args.latency_ms / 1000),
                              batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                              persistent_workers=args.num_workers > 0, pin_memory=device == "cuda")
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
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
