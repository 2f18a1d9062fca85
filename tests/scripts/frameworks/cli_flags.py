"""A training script in the style of timm's and torchvision's reference scripts: everything is set from
command-line flags (-j/--workers, -b/--batch-size, --amp, --channels-last), here with the workers left at
their default of 0 while each image is augmented in the Dataset.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); plain PyTorch, random images.
"""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class AugmentedImages(Dataset):
    def __init__(self, n, size=64):
        generator = torch.Generator().manual_seed(0)
        self.images = torch.randint(0, 256, (n, 3, size + 8, size + 8), dtype=torch.uint8, generator=generator)
        self.labels = torch.randint(0, 10, (n,), generator=generator)
        self.size = size

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        image = self.images[index].float() / 255.0
        top, left = torch.randint(0, 9, (2,)).tolist()
        image = image[:, top:top + self.size, left:left + self.size]
        if torch.rand(()) < 0.5:
            image = image.flip(-1)
        for _ in range(4):  # colour jitter and blur, as a reference script's transforms would
            image = image * (0.9 + 0.2 * torch.rand(3, 1, 1)) + 0.05 * torch.randn_like(image)
            image = nn.functional.avg_pool2d(image[None], 3, stride=1, padding=1)[0]
        return (image - 0.5) / 0.25, self.labels[index]


def parse_args():
    parser = argparse.ArgumentParser(description="Image classification training")
    parser.add_argument("-b", "--batch-size", default=32, type=int)
    parser.add_argument("-j", "--workers", default=0, type=int, help="data loading workers")
    parser.add_argument("--epochs", default=3, type=int)
    parser.add_argument("--lr", default=0.05, type=float)
    parser.add_argument("--amp", action="store_true", help="mixed precision")
    parser.add_argument("--channels-last", action="store_true")
    return parser.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    loader = DataLoader(AugmentedImages(4096), batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    model = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, stride=2, padding=1),
                          nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))
    for epoch in range(args.epochs):
        for images, targets in loader:
            images, targets = images.to(device), targets.to(device)
            with torch.autocast(device, dtype=torch.bfloat16, enabled=args.amp):
                loss = nn.functional.cross_entropy(model(images), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
