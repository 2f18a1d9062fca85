"""Logistic regression written by hand on an image folder small enough to be one batch, as beginners'
notebooks do it: the gradient is a matrix product, the update a subtraction, with no backward(), no
optimizer and no nn.Module.

Planted: every iteration takes the whole dataset again with ``next(iter(train_loader))`` (and the
validation set with ``next(iter(val_loader))``), so each step decodes, resizes and stacks every JPEG of
both folders in the main process, though the tensors are the same each time. The fix is to load both
once, before the loop. Expectations written before trainprobe was run on this script.
"""

TRAINPROBE_SAMPLE = {
    "plants": "the whole (one-batch) dataset decoded again at every step of a hand-written update",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["dataloader-whole-set-remade-each-step"],
                 "gpu": ["dataloader-whole-set-remade-each-step"]},
    "allow": {"cpu": ["dataloader-too-few-workers", "workers-decode-bound", "item-sync-in-loop",
                      "host-overhead-in-loop"],
              "gpu": ["dataloader-too-few-workers", "workers-decode-bound", "item-sync-in-loop",
                      "host-overhead-in-loop", "dataloader-pin-memory-off", "pageable-host-to-device-copies",
                      "tensor-created-on-cpu-in-loop", "launch-bound-small-ops"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import os
import tempfile

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from _data import write_jpeg_folder  # stands in for a small folder of photos on disk


def main():
    with tempfile.TemporaryDirectory(prefix="full-batch-") as root:
        train(root)


def train(root):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=150, help="passes over the data: one batch each")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_dir, val_dir = os.path.join(root, "train"), os.path.join(root, "val")
    os.makedirs(train_dir), os.makedirs(val_dir)
    write_jpeg_folder(train_dir, 48, size=(320, 240))
    write_jpeg_folder(val_dir, 16, size=(320, 240), seed=1)
    to_vector = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(64), transforms.ToTensor(),
                                    transforms.Lambda(torch.flatten)])
    train_set = datasets.ImageFolder(train_dir, to_vector)
    val_set = datasets.ImageFolder(val_dir, to_vector)
    train_loader = DataLoader(train_set, batch_size=len(train_set), shuffle=True)  # the whole set is one batch
    val_loader = DataLoader(val_set, batch_size=len(val_set))

    w = torch.zeros(3 * 64 * 64, 1, device=device)
    for step in range(args.epochs):
        if args.steps and step >= args.steps:
            break
        x, y = next(iter(train_loader))
        val_x, val_y = next(iter(val_loader))
        x, y, val_x, val_y = x.to(device), y.to(device).float(), val_x.to(device), val_y.to(device).float()
        predicted = torch.sigmoid(x @ w).squeeze(1)
        w -= 0.01 * x.t() @ (predicted - y).unsqueeze(1) / len(x)  # the gradient of the log-loss, by hand
        accuracy = ((torch.sigmoid(val_x @ w).squeeze(1) > 0.5).float() == val_y).float().mean()
        if step % 50 == 0:
            print(f"step {step}: validation accuracy {accuracy.item():.2f}")


if __name__ == "__main__":
    main()
