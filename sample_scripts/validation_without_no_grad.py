"""Validation in eval mode but without torch.no_grad(): autograd records every validation forward.

Planted: validate() calls model.eval() and believes that is enough. eval()
changes dropout and batch-norm behaviour; only torch.no_grad() (or
torch.inference_mode()) stops autograd from building a graph, so validation
costs more time and memory than it should. Everything else is clean.
"""

TRAINPROBE_SAMPLE = {
    "plants": "validation every 10 steps runs in eval mode but with autograd on (no torch.no_grad())",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["validation-without-no-grad"], "gpu": ["validation-without-no-grad"]},
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


def validate(model, loader, device):
    # PLANTED: eval() switches dropout and batch norm, but it does not stop autograd:
    # without torch.no_grad() every validation forward still records a graph and
    # keeps its activations alive until the loss tensor dies.
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum()
    model.train()
    return correct.item() / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=None, help="default: 256 on a CPU, 2048 on a GPU")
    parser.add_argument("--hidden", type=int, default=None, help="default: 1024 on a CPU, 4096 on a GPU")
    parser.add_argument("--train-size", type=int, default=24576)
    parser.add_argument("--val-every", type=int, default=10, help="validate every N steps")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    if args.hidden is None:  # a GPU needs a wider model (and bigger batches) to be kept busy
        args.hidden = 4096 if use_gpu else 1024
    if args.batch_size is None:
        args.batch_size = 2048 if use_gpu else 256
    torch.set_float32_matmul_precision("high")  # TF32 matmuls on GPUs that have them

    train_loader = DataLoader(make_data(args.train_size), batch_size=args.batch_size, shuffle=True,
                              pin_memory=use_gpu, drop_last=True)
    val_loader = DataLoader(make_data(4096, seed=1), batch_size=1024)

    h = args.hidden
    model = nn.Sequential(nn.Linear(256, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, fused=use_gpu)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_gpu):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % args.val_every == 0:
                print(f"step {step}: loss {loss.item():.3f}, val acc {validate(model, val_loader, device):.3f}")
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
