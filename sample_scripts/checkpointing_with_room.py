"""A small transformer-style MLP trained with every block under activation checkpointing, on a machine with memory
to spare.

Planted: checkpointing (torch.utils.checkpoint) frees each block's activations after the forward and runs the
block again inside backward to get them back: about a third more compute, bought to save memory this run does
not need (its activations are a few hundred MB against many GB free). Tutorials and configs turn it on by
default (trl's, for one); without it the blocks keep their activations and nothing is computed twice.
"""

TRAINPROBE_SAMPLE = {
    "plants": "every block under torch.utils.checkpoint with memory to spare",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["checkpointing-with-room"], "gpu": []},
    "allow": {"cpu": ["cpu-bf16-not-used", "compile-would-fuse"], "gpu": ["small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Net(nn.Module):
    def __init__(self, features=128, width=256, depth=6, classes=10):
        super().__init__()
        self.embed = nn.Linear(features, width)
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.embed(x)
        for block in self.blocks:
            # PLANTED: each block's activations are dropped and recomputed in backward.
            x = checkpoint(block, x, use_reentrant=False)
        return self.head(x)


def make_data(n, features=128, classes=10, seed=0):
    """Random inputs labelled by a fixed random linear "teacher", so there is something to learn."""
    teacher = torch.randn(features, classes, generator=torch.Generator().manual_seed(1234))
    x = torch.randn(n, features, generator=torch.Generator().manual_seed(seed))
    return TensorDataset(x, (x @ teacher).argmax(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--train-size", type=int, default=16384)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    loader = DataLoader(make_data(args.train_size), batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
