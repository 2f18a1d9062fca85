"""A wide elementwise network on big batches: glibc hands every activation's memory back to the kernel each step.

Planted: a tabular denoising model (three learned scale-and-shift layers with
tanh, 4096 features) trained on batches of 2304 rows. Each activation and
gradient is 36 MiB, over glibc malloc's 32 MiB limit for its heap, so malloc
maps every one of them with mmap and unmaps it when it is freed; the next step
asks for the same memory again, and the kernel faults in and zeroes every page
of it, once per step. On a CPU that takes as much time as the arithmetic.
`MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=...` (or jemalloc or tcmalloc)
keeps the pages. The loop itself is clean. On a GPU the activations live in
the CUDA caching allocator, which keeps them: nothing is planted there.
"""

TRAINPROBE_SAMPLE = {
    "plants": "36 MiB activations freed and faulted in again every step (glibc's mmap limit): the kernel's page faults",
    "verdict": {"cpu": "memory", "gpu": None},
    "findings": {"cpu": ["allocator-page-churn"], "gpu": []},
    "allow": {"cpu": ["compile-would-fuse"], "gpu": ["launch-bound-small-ops", "small-batch-underused-gpu", "compile-would-fuse"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ScaleShift(nn.Module):
    """A learned per-feature scale and shift, then tanh: elementwise work on the whole batch."""

    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width))

    def forward(self, x):
        return torch.tanh(x * self.weight + self.bias)


def make_data(rows, width, seed=0):
    g = torch.Generator().manual_seed(seed)
    clean = torch.randn(rows, width, generator=g)
    return TensorDataset(clean + 0.1 * torch.randn(rows, width, generator=g), clean)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=2304)
    parser.add_argument("--width", type=int, default=4096)
    parser.add_argument("--train-size", type=int, default=2304 * 6)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    loader = DataLoader(make_data(args.train_size, args.width), batch_size=args.batch_size, shuffle=True,
                        drop_last=True)
    model = nn.Sequential(*(ScaleShift(args.width) for _ in range(3))).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=args.epochs * len(loader))

    step = 0
    for epoch in range(args.epochs):
        for noisy, clean in loader:
            noisy, clean = noisy.to(device), clean.to(device)
            loss = nn.functional.mse_loss(model(noisy), clean)  # PLANTED: 36 MiB activations, faulted in every step
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
