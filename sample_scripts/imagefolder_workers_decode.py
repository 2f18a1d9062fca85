"""Fine-tuning on full-size photos with DataLoader workers that spend their time decoding.

Planted: the loader is set up well (workers, persistent_workers, pin_memory
on a GPU), but each 1600x1200 JPEG is fully decoded only to be shrunk to 96 px.
The workers are busy decoding and still cannot feed even this small model.
Fixes: pre-resize the data set once, let Pillow decode at reduced size
(Image.draft), use pillow-SIMD or GPU decoding (torchvision.io.decode_jpeg).
"""

TRAINPROBE_SAMPLE = {
    "plants": "DataLoader workers spend their time decoding 1600x1200 JPEGs to use 96 px of them",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["workers-decode-bound"], "gpu": ["workers-decode-bound"]},
    # Shrinking each full-size photo is transform work caused by the same plant.
    "allow": {"cpu": ["dataloader-too-few-workers", "cpu-oversubscription", "workers-augment-bound"],
              "gpu": ["dataloader-too-few-workers", "workers-augment-bound", "amp-not-used", "tf32-disabled",
                      "cudnn-benchmark-off", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import os
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
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))  # one per spare core
    parser.add_argument("--images", type=int, default=96)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    with tempfile.TemporaryDirectory() as root:
        write_jpeg_folder(root, args.images, size=(1600, 1200), classes=2)
        train_set = datasets.ImageFolder(root, transform=transforms.Compose([
            transforms.Resize(96),  # PLANTED: decode all of 1600x1200, then throw 99.5% of it away
            transforms.CenterCrop(96),
            transforms.ToTensor(),
            transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ]))
        train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                  num_workers=args.num_workers, persistent_workers=args.num_workers > 0,
                                  pin_memory=device == "cuda")

        model = small_convnet(len(train_set.classes)).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
        criterion = nn.CrossEntropyLoss()

        step = 0
        for epoch in range(args.epochs):
            model.train()
            for images, labels in train_loader:
                images = images.to(device, non_blocking=True)
                labels = labels.to(device, non_blocking=True)
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
