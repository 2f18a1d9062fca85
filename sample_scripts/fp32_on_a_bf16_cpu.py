"""A wide MLP trained in float32 on a CPU that multiplies bfloat16 faster.

Planted: CPUs with AVX-512 BF16 or AMX (this project's machines among them: about 2.2 times the
fp32 matmul rate, measured) run bf16 matrix products much faster, and torch.autocast("cpu",
dtype=torch.bfloat16) sends the model's matmuls there without loss scaling. The model and the
loop are otherwise clean (data in memory, fused AdamW, a schedule). On a CPU without fast bf16
the rule stays quiet; on a GPU the same script is the usual AMP case. Expectations written before
trainprobe was run on this script.
"""

TRAINPROBE_SAMPLE = {
    "plants": "fp32 matmuls on a CPU whose bf16 matmuls are faster (no CPU autocast)",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": ["cpu-bf16-not-used"], "gpu": ["amp-not-used"]},
    "allow": {"cpu": [], "gpu": ["tf32-disabled"]},
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
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=1024)
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
            loss = criterion(model(inputs), targets)  # PLANTED: float32, no torch.autocast
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            step += 1
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
