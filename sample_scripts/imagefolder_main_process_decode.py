"""Fine-tuning on an image folder of full-size photos, decoded in the training process.

Planted: torchvision's ImageFolder with the DataLoader's default num_workers=0,
so every 1600x1200 JPEG is decoded (and resized to 96 px) in the main process,
one at a time, while the small model waits. Decoding is the cost that
pillow-SIMD, Image.draft() or pre-resized copies of the images also reduce;
the first fix is worker processes.
"""

TRAINPROBE_SAMPLE = {
    "plants": "full-size JPEGs decoded and resized in the main process (num_workers=0)",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["dataloader-too-few-workers"],
                 "gpu": ["dataloader-too-few-workers", "dataloader-pin-memory-off"]},
    "allow": {"cpu": ["workers-decode-bound"],
              "gpu": ["workers-decode-bound", "pageable-host-to-device-copies", "amp-not-used",
                      "tf32-disabled", "cudnn-benchmark-off", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from _data import write_jpeg_folder  # stands in for a folder of photos on disk


def small_convnet(classes):
    return nn.Sequential(
        nn.Conv2d(3, 16, 4, stride=4), nn.BatchNorm2d(16), nn.ReLU(),  # patchify stem
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, classes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=0)  # the plant: the default
    parser.add_argument("--images", type=int, default=96)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    with tempfile.TemporaryDirectory() as root:
        write_jpeg_folder(root, args.images, size=(1600, 1200), classes=2)
        train_set = datasets.ImageFolder(root, transform=transforms.Compose([
            transforms.Resize(96),  # decode 1600x1200, then throw most of it away
            transforms.CenterCrop(96),
            transforms.ToTensor(),
            transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ]))
        train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                  num_workers=args.num_workers)

        model = small_convnet(len(train_set.classes)).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
        criterion = nn.CrossEntropyLoss()

        step = 0
        for epoch in range(args.epochs):
            model.train()
            for images, labels in train_loader:
                images, labels = images.to(device), labels.to(device)
                optimizer.zero_grad()
                loss = criterion(model(images), labels)
                loss.backward()
                optimizer.step()
                scheduler.step()
                step += 1
                if step == args.steps:
                    return
            print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
