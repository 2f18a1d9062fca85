"""A convnet on fixed-size images with torch.backends.cudnn.benchmark left at its default, False.

Planted: every batch has the same shape, which is exactly when cuDNN's
autotuner pays off: with cudnn.benchmark=True it times the convolution
algorithms once and then uses the fastest. Left off, cuDNN picks by heuristic.
On a CPU there is no cuDNN, so a CPU run should report plain compute.
"""

TRAINPROBE_SAMPLE = {
    "plants": "fixed-shape convolutions on a GPU with cudnn.benchmark left off (the default)",
    "verdict": {"cpu": None, "gpu": "compute"},
    "findings": {"cpu": [], "gpu": ["cudnn-benchmark-off"]},
    "allow": {"cpu": [], "gpu": ["channels-last-under-amp", "small-batch-underused-gpu"]},
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=None, help="default: 32 on a CPU, 256 on a GPU")
    parser.add_argument("--width", type=int, default=None, help="default: 16 on a CPU, 64 on a GPU")
    parser.add_argument("--train-size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    if args.batch_size is None:  # a GPU needs more work per step to be kept busy
        args.batch_size = 256 if use_gpu else 32
    if args.width is None:
        args.width = 64 if use_gpu else 16
    # PLANTED: no `torch.backends.cudnn.benchmark = True` although every batch is 3x32x32.
    g = torch.Generator().manual_seed(0)
    images = torch.randn(args.train_size, 3, 32, 32, generator=g)
    labels = torch.randint(0, 10, (args.train_size,), generator=g)
    train_loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True,
                              drop_last=True, pin_memory=use_gpu)

    model = convnet(args.width).to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=use_gpu)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x = x.to(device, non_blocking=True, memory_format=torch.channels_last)
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
