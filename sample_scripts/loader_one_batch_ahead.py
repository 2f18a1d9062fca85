"""A clean CNN loop whose loader wrapper fetches one batch ahead, as Hugging Face accelerate's and
Lightning's loaders do (to know which batch is the last one before it is used).

Planted: nothing. The wrapper holds the next batch while the loop trains on the current one: one
batch, the same one each step, freed as the loop moves on. Memory does not grow; a leak finding
here would be wrong. The data is in memory and the learning rate has a schedule. Expectations
written before trainprobe was run on this script.
"""

TRAINPROBE_SAMPLE = {
    "plants": "nothing: a loader that holds the next batch (accelerate, Lightning) is not a leak",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": [], "gpu": []},
    "clean": True,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class OneAhead:
    """Iterate ``loader`` one batch ahead: the batch after the current one is already fetched."""

    def __init__(self, loader):
        self.loader = loader

    def __len__(self):
        return len(self.loader)

    def __iter__(self):
        batches = iter(self.loader)
        try:
            upcoming = next(batches)
        except StopIteration:
            return
        for following in batches:
            current, upcoming = upcoming, following
            yield current
        yield upcoming


def make_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Linear(128, 10))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    images = torch.randn(6144, 3, 32, 32)
    labels = torch.randint(0, 10, (6144,))
    loader = OneAhead(DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True))
    model = make_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(loader))
    step = 0
    for epoch in range(args.epochs):
        total = 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item()
            step += 1
            if args.steps and step >= args.steps:
                return
        print(f"epoch {epoch} loss {total / len(loader):.3f}")


if __name__ == "__main__":
    main()
