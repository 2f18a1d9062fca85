"""Training from a data set on slow storage: every sample is a small file on a "network share".

Planted: each __getitem__ opens one small .npy file. Here the files sit in a
local temp folder, so a time.sleep() of --latency-ms per file stands in for
the round trip of a network file system (NFS, SMB, a cloud bucket mount) or a
busy spinning disk. The workers spend their time waiting, not computing: CPU
is idle and the model still waits. Fixes: copy the data set to local SSD or
/dev/shm once, pack it into a few large shards (WebDataset, one .npy), or use
more workers / threads to keep more requests in flight.
"""

TRAINPROBE_SAMPLE = {
    "plants": "each sample is read from a slow (simulated network) file system; workers wait on I/O",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["storage-bound-input"], "gpu": ["storage-bound-input"]},
    "allow": {"cpu": ["dataloader-too-few-workers"],
              "gpu": ["dataloader-too-few-workers", "amp-not-used", "tf32-disabled",
                      "cudnn-benchmark-off", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from _data import write_npy_files  # stands in for a pre-processed data set on a file server


class FilesOnShare(Dataset):
    def __init__(self, paths, latency_s):
        self.paths, self.latency_s = paths, latency_s

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        time.sleep(self.latency_s)  # PLANTED: stand-in for one network-share round trip per file
        x = torch.from_numpy(np.load(self.paths[i]))
        return x, i % 10


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--files", type=int, default=512)
    parser.add_argument("--latency-ms", type=float, default=8.0)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    with tempfile.TemporaryDirectory() as root:
        paths = write_npy_files(root, args.files, shape=(3, 64, 64))
        train_loader = DataLoader(FilesOnShare(paths, args.latency_ms / 1000), batch_size=args.batch_size,
                                  shuffle=True, num_workers=args.num_workers,
                                  persistent_workers=args.num_workers > 0, pin_memory=device == "cuda")

        model = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
        criterion = nn.CrossEntropyLoss()

        step = 0
        for epoch in range(args.epochs):
            model.train()
            for x, y in train_loader:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
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
