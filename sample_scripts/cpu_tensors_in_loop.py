"""A clean MLP trainer that builds tensors on the CPU inside the loop and copies them over.

Planted: Gaussian input noise (torch.randn(x.shape)) and the class-weight
tensor are created on the CPU at every step and moved with .to(device). On a
GPU that is two pageable host-to-device copies per step, the larger one the
size of the batch; on a CPU there is nothing to copy, and no device to create
them on: trainprobe says nothing there.
"""

TRAINPROBE_SAMPLE = {
    "plants": "noise and class weights built on the CPU every step, then copied with .to(device)",
    "verdict": {"cpu": "compute", "gpu": "copy"},
    "findings": {"cpu": [], "gpu": ["tensor-created-on-cpu-in-loop"]},
    "allow": {"cpu": [], "gpu": ["pageable-host-to-device-copies", "launch-bound-small-ops", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


CLASS_WEIGHTS = [1.0, 1.2, 0.8, 1.0, 1.1, 0.9, 1.0, 1.3, 0.7, 1.0]


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
    parser.add_argument("--batch-size", type=int, default=None, help="default: 256 on a CPU, 2048 on a GPU")
    parser.add_argument("--hidden", type=int, default=None, help="default: 1024 on a CPU, 4096 on a GPU")
    parser.add_argument("--train-size", type=int, default=None, help="default: 24576 on a CPU, 196608 on a GPU")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    if args.hidden is None:  # a GPU needs a wider model (and bigger batches) to be kept busy
        args.hidden = 4096 if use_gpu else 1024
    if args.batch_size is None:
        args.batch_size = 2048 if use_gpu else 256
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
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, fused=use_gpu)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            # PLANTED: input noise and class weights are built on the CPU every step and
            # then copied (from pageable memory) to the device. torch.randn(..., device=device)
            # and a weight tensor made once before the loop would avoid both copies.
            noise = (0.1 * torch.randn(x.shape)).to(device)
            class_weights = torch.tensor(CLASS_WEIGHTS).to(device)
            x = x + noise
            optimizer.zero_grad()
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_gpu):
                loss = nn.functional.cross_entropy(model(x), y, weight=class_weights)
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
