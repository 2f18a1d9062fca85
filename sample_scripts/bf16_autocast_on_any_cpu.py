"""A wide MLP trained under bfloat16 autocast on whatever device it finds, a CPU without bf16 instructions included.

Planted: the loop turns on torch.autocast(device, dtype=torch.bfloat16) wherever it runs, as a script written for a
GPU (or Lightning's precision="bf16-mixed") does. CPUs with AVX-512 BF16 or AMX multiply bfloat16 faster than
float32, but an AVX2-only CPU (this project's VM since 2026-11-29 measures bf16 products at about a tenth of its
fp32 rate) converts every operand and multiplies slowly: the math runs several times slower than in float32. The
model and the loop are otherwise clean (data in memory, fused AdamW, a schedule). On a CPU with fast bf16 the rule
stays quiet (and the sample is clean); on a GPU bf16 autocast is the right setting.
"""

TRAINPROBE_SAMPLE = {
    "plants": "bf16 autocast on a CPU whose bf16 matmuls are slower than its fp32 ones",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": ["cpu-bf16-slower"], "gpu": []},
    "allow": {"cpu": ["compile-would-fuse"], "gpu": ["tf32-disabled", "small-batch-underused-gpu"]},
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
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(8 * args.batch_size, 512)
    y = (x @ torch.randn(512, 10)).argmax(1)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True, drop_last=True)
    h = args.hidden
    model = nn.Sequential(nn.Linear(512, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            inputs, targets = inputs.to(device), targets.to(device)
            with torch.autocast(device, dtype=torch.bfloat16):  # PLANTED: bf16 on any device, this CPU included
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
