"""A clean MLP trainer, except that autograd anomaly detection was left switched on.

Planted: torch.autograd.set_detect_anomaly(True), a debugging aid that makes
every forward record stack traces and every backward check for NaNs. It is
meant for one debugging session, not for training runs.
"""

TRAINPROBE_SAMPLE = {
    "plants": "torch.autograd.set_detect_anomaly(True) left on for the whole run",
    "verdict": {"cpu": "host", "gpu": None},
    "findings": {"cpu": ["debug-api-enabled"], "gpu": ["debug-api-enabled"]},
    "allow": {"cpu": [], "gpu": ["launch-bound-small-ops", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": True,
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
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=None, help="default: 256 on a CPU, 2048 on a GPU")
    parser.add_argument("--hidden", type=int, default=None, help="default: 512 on a CPU, 4096 on a GPU")
    parser.add_argument("--train-size", type=int, default=24576)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    if args.hidden is None:  # a GPU needs a wider model (and bigger batches) to be kept busy
        # On a CPU, 512 wide: at 1024 the math was 9 times what the switch costs (a 1.1x setting beside
        # it, and the run compute-bound); at 256 the loader's per-sample indexing was a quarter of the step.
        args.hidden = 4096 if use_gpu else 512
    if args.batch_size is None:
        args.batch_size = 2048 if use_gpu else 256
    torch.set_float32_matmul_precision("high")  # TF32 matmuls on GPUs that have them
    # PLANTED: left on after hunting a NaN last week. Anomaly mode records a Python
    # stack trace for every autograd node and checks every backward result.
    torch.autograd.set_detect_anomaly(True)

    train_loader = DataLoader(make_data(args.train_size), batch_size=args.batch_size, shuffle=True,
                              pin_memory=use_gpu, drop_last=True)
    val_loader = DataLoader(make_data(2048, seed=1), batch_size=1024)

    h = args.hidden
    model = nn.Sequential(nn.Linear(256, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, fused=use_gpu)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_gpu):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return

        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                correct += (model(x).argmax(1) == y).sum()
        print(f"epoch {epoch}: loss {loss.item():.3f}, val acc {correct.item() / len(val_loader.dataset):.3f}")


if __name__ == "__main__":
    main()
