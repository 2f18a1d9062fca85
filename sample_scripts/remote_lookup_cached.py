"""The same remote label service, looked up in bulk once before training: the fixed counterpart.

remote_lookup_dataset.py asks the service for each sample's label inside
__getitem__, one round trip per sample, in series with the step. Here the
labels of the whole set come back in one request before training (one round
trip for all of them), and __getitem__ reads them from memory: the loop no
longer waits, and nothing should be raised above info.
"""

TRAINPROBE_SAMPLE = {
    "plants": "nothing: the remote labels fetched in bulk once, before training (the fix of remote_lookup_dataset.py)",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": [], "gpu": []},
    "clean": True,
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


class CachedLabels(Dataset):
    def __init__(self, images, service):
        self.images = images
        self.labels = service.lookup(torch.arange(len(images)))  # one round trip for the whole set

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=12)
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
    train_loader = DataLoader(CachedLabels(images, service), batch_size=args.batch_size, shuffle=True,
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
