"""A wide MLP trained on batches of 16: thin matrix products, and memory for a batch many times larger.

Planted: the batch size is 16 on a model whose layers are 2048 wide. Every
matrix product has 16 rows, too few to keep the cores (or a GPU's SMs) busy,
so the step runs far below the hardware's peak; and the step's memory is
almost all weights, gradients and AdamW's two states, with a few megabytes of
activations: a 4x batch (64) or far larger fits. trainprobe should say that
a larger batch fits, with its estimated peak memory. Everything else is clean.
"""

TRAINPROBE_SAMPLE = {
    "plants": "batch size 16 on a 2048-wide MLP: thin products (low MFU) and room in memory for a far larger batch",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["low-mfu-small-batch"], "gpu": ["small-batch-underused-gpu"]},
    "allow": {"cpu": [], "gpu": ["launch-bound-small-ops", "low-mfu-small-batch"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

WIDTH, DEPTH, FEATURES, CLASSES = 2048, 4, 512, 10


def make_model() -> nn.Sequential:
    """FEATURES -> DEPTH hidden layers of WIDTH -> CLASSES: the sizes the memory tests count on."""
    layers, width = [], FEATURES
    for _ in range(DEPTH):
        layers += [nn.Linear(width, WIDTH), nn.GELU()]
        width = WIDTH
    return nn.Sequential(*layers, nn.Linear(width, CLASSES))


def make_data(n, seed=0):
    """Random inputs labelled by a fixed random linear "teacher", so there is something to learn."""
    teacher = torch.randn(FEATURES, CLASSES, generator=torch.Generator().manual_seed(1234))
    x = torch.randn(n, FEATURES, generator=torch.Generator().manual_seed(seed))
    return TensorDataset(x, (x @ teacher).argmax(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--train-size", type=int, default=16384)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.set_float32_matmul_precision("high")  # TF32 matmuls on GPUs that have them
    loader = DataLoader(make_data(args.train_size), batch_size=args.batch_size, shuffle=True, drop_last=True,
                        pin_memory=device == "cuda")
    model = make_model().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01, fused=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with torch.autocast(device, dtype=torch.bfloat16, enabled=device == "cuda"):
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
