"""A dataset that looks each sample up in a remote service, read by the training loop itself.

Planted: __getitem__ asks a "label service" for each sample's label; a
time.sleep of --latency-ms stands in for the round trip (an HTTP call, a
database query). The DataLoader has num_workers=0 (the default, as in a
notebook), so every lookup runs in series with the step, and the loop spends
most of its time waiting with the CPU idle. A worker per core would hide only
part of the wait: waiting workers need no core, so many more workers than
cores keep up. Fixes: look the labels up in bulk once (remote_lookup_cached.py),
or run enough workers, more than the cores.
"""

TRAINPROBE_SAMPLE = {
    "plants": "each sample waits ~2 ms on a (simulated) remote service in __getitem__, with num_workers=0",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["dataloader-workers-waiting"], "gpu": ["dataloader-workers-waiting"]},
    "allow": {"cpu": [],
              "gpu": ["amp-not-used", "tf32-disabled", "cudnn-benchmark-off", "small-batch-underused-gpu",
                      "dataloader-pin-memory-off"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class LabelService:
    """Stands in for a remote label store: one round trip per request, however many ids it asks for."""

    def __init__(self, labels, latency_s):
        self.labels, self.latency_s = labels, latency_s

    def lookup(self, ids):
        time.sleep(self.latency_s)  # the round trip
        return self.labels[ids]


class RemoteLabels(Dataset):
    def __init__(self, images, service):
        self.images, self.service = images, service

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.service.lookup(i)  # PLANTED: a round trip for every sample


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-workers", type=int, default=0)
    parser.add_argument("--samples", type=int, default=8192)
    parser.add_argument("--latency-ms", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    # One core for the loop: this sample plants only the wait in __getitem__.
    torch.set_num_threads(1)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(0)
    images = torch.rand(args.samples, 3, 32, 32, generator=g)
    service = LabelService(torch.randint(0, 10, (args.samples,), generator=g), args.latency_ms / 1000)
    train_loader = DataLoader(RemoteLabels(images, service), batch_size=args.batch_size, shuffle=True,
                              num_workers=args.num_workers)
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
            x, y = x.to(device), y.to(device)
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
