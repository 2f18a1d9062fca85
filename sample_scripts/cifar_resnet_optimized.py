"""The same CIFAR-10 ResNet trainer as cifar_resnet_unoptimized.py, with the usual fixes applied.

Clean: augmentation runs in persistent DataLoader workers (about one per spare
core), batches are pinned and copied asynchronously on a GPU, AdamW with a
one-cycle schedule, gradients released with the default zero_grad(), metrics
kept on the device, validation under torch.no_grad(); on a GPU also bf16
autocast, channels_last, cudnn.benchmark, TF32 and a fused optimizer.
"""

TRAINPROBE_SAMPLE = {
    "plants": "nothing: the optimized counterpart of cifar_resnet_unoptimized.py",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": [], "gpu": []},
    "clean": True,
    "ci": False,
    "args": [],
}

import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

from _data import fake_cifar10  # stands in for torchvision.datasets.CIFAR10(download=True)


class CIFAR(Dataset):
    def __init__(self, images, labels, transform):
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(Image.fromarray(self.images[i])), self.labels[i]


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.skip = nn.Sequential()
        if stride != 1 or cin != cout:
            self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.skip(x))


class ResNet8(nn.Module):
    def __init__(self, width=16, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.layers = nn.Sequential(Block(width, width, 1), Block(width, 2 * width, 2), Block(2 * width, 4 * width, 2))
        self.head = nn.Linear(4 * width, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--num-workers", type=int, default=min(4, max(1, (os.cpu_count() or 2) - 1)))
    parser.add_argument("--train-size", type=int, default=5120)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    torch.backends.cudnn.benchmark = True  # fixed 32x32 inputs: let cuDNN pick the fastest kernels
    torch.set_float32_matmul_precision("high")
    images, labels = fake_cifar10(args.train_size)
    augment = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26)),
    ])
    train_loader = DataLoader(CIFAR(images, labels, augment), batch_size=args.batch_size, shuffle=True,
                              num_workers=args.num_workers, persistent_workers=args.num_workers > 0,
                              pin_memory=use_gpu, drop_last=True)
    test_images, test_labels = fake_cifar10(1024, seed=1)
    plain = transforms.Compose([transforms.ToTensor(), augment.transforms[-1]])
    val_loader = DataLoader(CIFAR(test_images, test_labels, plain), batch_size=512,
                            num_workers=args.num_workers, persistent_workers=args.num_workers > 0)

    model = ResNet8().to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05, fused=use_gpu)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=2e-3, total_steps=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        running_loss = torch.zeros((), device=device)  # summed on the device: no sync per step
        for x, y in train_loader:
            x = x.to(device, non_blocking=True, memory_format=torch.channels_last)
            y = y.to(device, non_blocking=True)
            optimizer.zero_grad()  # set_to_none=True, the default
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_gpu):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running_loss += loss.detach()
            step += 1
            if step == args.steps:
                return

        model.eval()
        correct = torch.zeros((), device=device)
        with torch.no_grad(), torch.autocast(device, dtype=torch.bfloat16, enabled=use_gpu):
            for x, y in val_loader:
                x = x.to(device, non_blocking=True, memory_format=torch.channels_last)
                correct += (model(x).argmax(1) == y.to(device, non_blocking=True)).sum()
        print(f"epoch {epoch}: train loss {running_loss.item() / len(train_loader):.3f}, "
              f"val acc {correct.item() / len(val_loader.dataset):.3f}")


if __name__ == "__main__":
    main()
