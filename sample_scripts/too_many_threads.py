"""A compute-bound MLP trainer that asks torch for 16 threads, whatever the machine has.

Planted: torch.set_num_threads(16), copied from a script written for a
16-core workstation (the same happens in containers, where torch counts the
host's cores rather than the container's CPU quota). With more busy threads
than cores, the threads of every matmul preempt each other and wait for
stragglers, so the math gets slower, not faster. Fix: leave the default, or
set the thread count to the usable cores (os.sched_getaffinity / cgroup quota).
"""

TRAINPROBE_SAMPLE = {
    "plants": "torch.set_num_threads(16) on a machine with fewer cores: the CPU is oversubscribed",
    # Not scored: how much the extra threads cost depends on what else the machine runs
    # (on a busy shared host, more threads can even win a larger share of the CPU).
    "verdict": {"cpu": None, "gpu": None},
    "findings": {"cpu": ["cpu-oversubscription"], "gpu": []},
    "allow": {"cpu": [], "gpu": ["cpu-oversubscription", "small-batch-underused-gpu", "launch-bound-small-ops"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(n, features=256, classes=10, seed=0):
    """Random inputs labelled by a fixed random linear "teacher", so there is something to learn."""
    teacher = torch.randn(features, classes, generator=torch.Generator().manual_seed(1234))
    x = torch.randn(n, features, generator=torch.Generator().manual_seed(seed))
    return TensorDataset(x, (x @ teacher).argmax(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--threads", type=int, default=16)  # PLANTED: "our workstation has 16 cores"
    parser.add_argument("--train-size", type=int, default=16384)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader = DataLoader(make_data(args.train_size), batch_size=args.batch_size, shuffle=True,
                              pin_memory=device == "cuda", drop_last=True)

    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
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
