"""A small ResNet-style convnet trained in float32 on the CPU, in the default NCHW memory layout.

Planted: convolutions take most of the step's op time, and the model's 4-d weights and its input batches are
channels-first. PyTorch's CPU convolutions (oneDNN) compute in a channels-last layout, so weights and
activations are reordered around every convolution, forward and backward. Fix: model.to(memory_format=
torch.channels_last) where the script holds the model (and the same for each input batch); a modest gain
(about a tenth of the convolutions' time), so trainprobe reports it as information. On a GPU the same script
trains fp32 convolutions without autocast: mixed precision is the lever there.
"""

TRAINPROBE_SAMPLE = {
    "plants": "fp32 convolutions on the CPU in NCHW layout (no channels_last)",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": ["cpu-channels-last-not-used"], "gpu": ["amp-not-used"]},
    "allow": {"cpu": ["cpu-bf16-not-used", "compile-would-fuse", "low-mfu-small-batch", "cpu-oversubscription"],
              "gpu": ["small-batch-underused-gpu", "low-mfu-small-batch", "tf32-disabled", "low-tensor-core-use"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(out)))


def make_model(width: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
        Block(width), Block(width),
        nn.Conv2d(width, 2 * width, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(2 * width), nn.ReLU(),
        Block(2 * width), Block(2 * width),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * width, 10),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--train-size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(0)
    images = torch.randn(args.train_size, 3, 32, 32, generator=g)
    labels = torch.randint(0, 10, (args.train_size,), generator=g)
    train_loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True,
                              drop_last=True)

    model = make_model(args.width).to(device)  # PLANTED: NCHW weights (no memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)  # and NCHW inputs
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
