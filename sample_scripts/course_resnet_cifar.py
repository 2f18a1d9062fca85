"""The course notebook's starting point: a ResNet on CIFAR-10 that is compute-bound and runs as written.

The data is already in memory as normalized tensors (no input bottleneck), and the loop does
nothing but train. What is left is how the model itself runs: not compiled, in fp32, with a
for-loop AdamW and cudnn.benchmark off. The course's optimized notebook applies torch.compile,
mixed precision, a fused AdamW and cudnn.benchmark to the same model; trainprobe should find
the first of these from the step's own ops (its convolutions sit between batch norms, ReLUs and
residual adds, memory-bound element-wise work that a compiled graph fuses) and --verify should
measure it. Expectations written before trainprobe was run on this script.
"""

TRAINPROBE_SAMPLE = {
    "plants": "an uncompiled fp32 ResNet with a for-loop AdamW: compute-bound, with element-wise work to fuse",
    # The model's math is the step. On a CPU its batch norms, ReLUs and residual adds are a large
    # share of the op time next to the convolutions: torch.compile's fusion is the lever. On a GPU
    # this small ResNet at batch 128 leaves the GPU waiting on launches and runs fp32 without AMP.
    "verdict": {"cpu": "compute", "gpu": "launch"},
    "findings": {"cpu": ["compile-would-fuse"],
                 "gpu": ["launch-bound-small-ops", "amp-not-used"]},
    "allow": {"cpu": ["optimizer-share-high", "cpu-bf16-not-used"],
              "gpu": ["cudnn-benchmark-off", "tf32-disabled", "optimizer-not-fused", "small-batch-underused-gpu",
                      "compile-would-fuse", "low-mfu-small-batch", "tiny-kernels-launch-bound",
                      "gpu-idle-between-steps"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from _data import fake_cifar10  # stands in for torchvision.datasets.CIFAR10(download=True)

_MEAN = torch.tensor([0.49, 0.48, 0.45]).view(1, 3, 1, 1)
_STD = torch.tensor([0.25, 0.24, 0.26]).view(1, 3, 1, 1)


class Block(nn.Module):
    """A basic residual block: conv-BN-ReLU, conv-BN, add the shortcut, ReLU."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNet(nn.Module):
    """Three stages of two blocks (16, 32 and 64 channels): a ResNet-14 for 32x32 images."""

    def __init__(self, width: int = 16, classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        stages, cin = [], width
        for i, cout in enumerate((width, 2 * width, 4 * width)):
            stages += [Block(cin, cout, 1 if i == 0 else 2), Block(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*stages)
        self.head = nn.Linear(cin, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layers(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--train-size", type=int, default=5120)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    images, labels = fake_cifar10(args.train_size)
    x_all = (torch.from_numpy(images).permute(0, 3, 1, 2).float() / 255 - _MEAN) / _STD  # in memory, once
    train_loader = DataLoader(TensorDataset(x_all, torch.from_numpy(labels)), batch_size=args.batch_size,
                              shuffle=True, drop_last=True)

    model = ResNet().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)  # torch's default: a for-loop
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=2e-3,
                                                    total_steps=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            flip = torch.rand(x.shape[0], 1, 1, 1, device=device) < 0.5  # random horizontal flips, on the batch
            x = torch.where(flip, x.flip(3), x)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f}")
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
