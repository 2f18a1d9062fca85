"""A clean, compute-bound MLP classifier: the baseline that should raise nothing.

Data lives in memory, the loop does nothing but train, the optimizer is AdamW
with a cosine schedule, validation runs under torch.no_grad(), and on a GPU
the forward pass uses bf16 autocast with TF32 allowed; the optimizer is fused on
both (a for-loop AdamW takes a quarter of a CPU step here: optimizer-share-high).
"""

TRAINPROBE_SAMPLE = {
    "plants": "nothing: a clean compute-bound MLP (the control)",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": [], "gpu": []},
    "clean": True,
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


class DeviceBatches:
    """On a GPU: the (small, in-memory) data kept on the device, shuffled, and each batch taken with one
    index. A DataLoader collating 2048 samples one by one took most of the step on an H200
    (benchmarks/gpu_campaign.py, 2026-11-26), so this sample planted an input-bound loop there."""

    def __init__(self, dataset, batch_size, device):
        self.tensors = [t.to(device) for t in dataset.tensors]
        self.batch_size = batch_size

    def __len__(self):
        return len(self.tensors[0]) // self.batch_size

    def __iter__(self):
        order = torch.randperm(len(self.tensors[0]), device=self.tensors[0].device)
        for i in range(len(self)):
            index = order[i * self.batch_size:(i + 1) * self.batch_size]
            yield tuple(t[index] for t in self.tensors)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=None, help="default: 4 on a CPU, 30 on a GPU")
    parser.add_argument("--batch-size", type=int, default=None, help="default: 256 on a CPU, 4096 on a GPU")
    parser.add_argument("--hidden", type=int, default=None, help="default: 1024 on a CPU, 8192 on a GPU")
    parser.add_argument("--train-size", type=int, default=None, help="default: 24576 on a CPU, 196608 on a GPU")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    # A GPU needs a wider model and bigger batches to be kept busy. At hidden 4096 and batch 2048 an H100
    # ran 1.3 ms of kernels in a 2.4 ms step (benchmarks/gpu_campaign.py, 2026-11-27): the host's launches
    # set the pace, and the control was launch-bound. Eight times the math (about 3.3 TFLOP a step) is not.
    if args.hidden is None:
        args.hidden = 8192 if use_gpu else 1024
    if args.batch_size is None:
        args.batch_size = 4096 if use_gpu else 256
    if args.epochs is None:  # steps of milliseconds on a GPU: enough of them to measure
        args.epochs = 30 if use_gpu else 4
    if args.train_size is None:  # epochs long enough that the per-epoch validation stays small
        args.train_size = 8 * 24576 if use_gpu else 24576
    torch.set_float32_matmul_precision("high")  # TF32 matmuls on GPUs that have them

    if use_gpu:
        train_loader = DeviceBatches(make_data(args.train_size), args.batch_size, device)
    else:
        train_loader = DataLoader(make_data(args.train_size), batch_size=args.batch_size, shuffle=True,
                                  drop_last=True)
    val_loader = DataLoader(make_data(2048, seed=1), batch_size=1024)

    h = args.hidden
    model = nn.Sequential(nn.Linear(256, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(),
                          nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 10)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, fused=True)  # CPU and GPU alike
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
