"""A first-attempt CIFAR-10 ResNet trainer: every image is augmented in the main process.

Planted: the DataLoader has num_workers=0 (the default), so PIL decoding,
random crops, flips and normalisation run in the training process, one image
at a time, while the model waits. On a GPU, pin_memory is also left off.
Compare with cifar_resnet_optimized.py.
"""

TRAINPROBE_SAMPLE = {
    "plants": "CIFAR-10 augmentation runs in the main process (num_workers=0) while a small ResNet waits",
    # On a CPU the ResNet's own math dominates (the main-process loading costs ~10-20% of a
    # step there); on a GPU the same loading is most of the step.
    "verdict": {"cpu": "compute", "gpu": "input"},
    "findings": {"cpu": [],
                 "gpu": ["dataloader-too-few-workers", "dataloader-pin-memory-off"]},
    # Also true of this first attempt, and fine to report:
    "allow": {"cpu": ["dataloader-too-few-workers"],
              "gpu": ["amp-not-used", "tf32-disabled", "cudnn-benchmark-off",
                      "pageable-host-to-device-copies", "optimizer-not-fused",
                      "small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

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
    parser.add_argument("--num-workers", type=int, default=0)  # the plant
    parser.add_argument("--train-size", type=int, default=5120)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    images, labels = fake_cifar10(args.train_size)
    augment = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26)),
    ])
    train_loader = DataLoader(CIFAR(images, labels, augment), batch_size=args.batch_size,
                              shuffle=True, num_workers=args.num_workers)

    model = ResNet8().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 50 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.3f}")
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
