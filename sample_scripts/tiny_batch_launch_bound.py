"""A tiny MLP trained with batches of 4: each step is a few hundred tiny operations.

Planted: the model and batch are so small that every operator does almost no
work, so the time goes into dispatching operators (Python, the dispatcher and,
on a GPU, kernel launches), not into arithmetic. Fixes: bigger batches,
torch.compile or CUDA graphs to fuse or replay the launches.
"""

TRAINPROBE_SAMPLE = {
    "plants": "batch size 4 on a tiny MLP: per-operator dispatch/launch overhead dominates",
    "verdict": {"cpu": "launch", "gpu": "launch"},
    "findings": {"cpu": ["launch-bound-small-ops"],
                 "gpu": ["launch-bound-small-ops", "small-batch-underused-gpu", "optimizer-not-fused"]},
    # The update of a for-loop AdamW does not shrink with the batch: at batch 4 it is a third of the step
    # (optimizer-share-high on a CPU, as optimizer-not-fused on a GPU).
    "allow": {"cpu": ["host-overhead-in-loop", "small-batch-overhead", "optimizer-share-high"], "gpu": ["host-overhead-in-loop"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=4)  # PLANTED: tiny batches
    parser.add_argument("--train-size", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(0)
    x = torch.randn(args.train_size, 32, generator=g)
    y = (x[:, :4].sum(1) > 0).long()
    train_loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True)

    model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                          nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
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
