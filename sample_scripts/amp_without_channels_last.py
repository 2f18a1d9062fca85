"""A convnet trained with bf16 autocast on a GPU, but in the default NCHW memory layout.

Planted: under autocast, convolutions run on tensor cores, which want
channels-last (NHWC) tensors; with NCHW inputs and weights cuDNN inserts
layout transposes around every convolution. Fix: model.to(memory_format=
torch.channels_last) and the same for each input batch. On a CPU run there is
no autocast here, so nothing to report but compute.
"""

TRAINPROBE_SAMPLE = {
    "plants": "bf16 autocast convolutions in NCHW layout (no channels_last) on a GPU",
    "verdict": {"cpu": None, "gpu": "compute"},
    "findings": {"cpu": [], "gpu": ["channels-last-under-amp"]},
    "allow": {"cpu": [], "gpu": ["small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def convnet(width=32, classes=10):
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.MaxPool2d(2))
    return nn.Sequential(block(3, width), block(width, 2 * width), block(2 * width, 4 * width),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * width, classes))


class DeviceBatches:
    """On a GPU: the (small, in-memory) data kept on the device, shuffled, and each batch taken with one
    index. A DataLoader collating its samples one by one took most of the step on an H200
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
    parser.add_argument("--epochs", type=int, default=None, help="default: 3 on a CPU, 40 on a GPU")
    parser.add_argument("--batch-size", type=int, default=None, help="default: 32 on a CPU, 256 on a GPU")
    parser.add_argument("--width", type=int, default=None, help="default: 16 on a CPU, 64 on a GPU")
    parser.add_argument("--train-size", type=int, default=None, help="default: 1024 on a CPU, 8192 on a GPU")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    if args.batch_size is None:  # a GPU needs more work per step to be kept busy
        args.batch_size = 256 if use_gpu else 32
    if args.width is None:
        args.width = 64 if use_gpu else 16
    if args.epochs is None:  # steps of milliseconds on a GPU: enough of them to measure
        args.epochs = 40 if use_gpu else 3
    if args.train_size is None:
        args.train_size = 8192 if use_gpu else 1024
    torch.backends.cudnn.benchmark = True  # fixed input shapes: let cuDNN pick the fastest algorithms
    g = torch.Generator().manual_seed(0)
    images = torch.randn(args.train_size, 3, 32, 32, generator=g)
    labels = torch.randint(0, 10, (args.train_size,), generator=g)
    if use_gpu:
        train_loader = DeviceBatches(TensorDataset(images, labels), args.batch_size, device)
    else:
        train_loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True,
                                  drop_last=True)

    model = convnet(args.width).to(device)  # PLANTED: NCHW weights under autocast (no memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=use_gpu)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x = x.to(device, non_blocking=True)  # and NCHW inputs
            y = y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_gpu):
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
