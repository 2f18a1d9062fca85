"""A large model trained on batches of 16 with torch's default (for-loop) AdamW.

Planted: the update touches 9.5 M parameters and Adam's two moments once a step whatever the
batch, one tensor at a time, while a batch of 16 gives the matrix products little to do. On a
CPU the optimizer's update is most of the step (optimizer-share-high: fused=True, or more samples
per update) and the products run far below the CPU's peak (low-mfu-small-batch: a larger batch,
which memory has room for). The data is in memory and the loop does nothing else. Expectations
written before trainprobe was run on this script.
"""

TRAINPROBE_SAMPLE = {
    "plants": "a 9.5 M-parameter MLP on batches of 16 with a for-loop AdamW: the update dominates, MFU is low",
    "verdict": {"cpu": "compute", "gpu": "launch"},
    "findings": {"cpu": ["optimizer-share-high", "low-mfu-small-batch"],
                 "gpu": ["optimizer-not-fused", "small-batch-underused-gpu"]},
    "allow": {"cpu": ["small-batch-overhead", "launch-bound-small-ops", "cpu-bf16-not-used"],
              "gpu": ["launch-bound-small-ops", "amp-not-used", "tf32-disabled", "low-mfu-small-batch",
                      "tiny-kernels-launch-bound"]},
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
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=16)  # PLANTED: small batches for a large model
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(4096, 512)
    y = (x @ torch.randn(512, 10)).argmax(1)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True, drop_last=True)
    h = args.hidden
    model = nn.Sequential(nn.Linear(512, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, h), nn.GELU(),
                          nn.Linear(h, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)  # PLANTED: torch's default, a for-loop on a CPU
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            loss = criterion(model(inputs), targets)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            step += 1
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
