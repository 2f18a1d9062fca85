"""A speed test of a few slow batches, as users write one to time a model: ``--batches N`` (default 4)
batches of random images from a DataLoader with num_workers=0, each step about ``--step-seconds``
long (default 6.5), 89% of it in the model's forward, which multiplies matrices until its share of
the step has passed (real compute, sized by time so that a loaded machine keeps the shape). The
dataset makes each image with a little arithmetic, ``--data-share`` of the step (default 0.04)."""
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

FORWARD_SHARE = 0.89


class Images(Dataset):
    def __init__(self, n, seconds_per_item):
        self.n, self.seconds = n, seconds_per_item

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        end = time.perf_counter() + self.seconds
        x = torch.randn(3, 64, 64)
        while time.perf_counter() < end:  # decoding and augmenting, in miniature
            x = (x * 0.5 + 0.1).tanh()
        return x, i % 10


class TimedNet(nn.Module):
    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds
        self.head = nn.Linear(3 * 64 * 64, 10)
        self.w = torch.randn(256, 256) / 16

    def forward(self, x):
        end = time.perf_counter() + self.seconds
        h = torch.randn(256, 256)
        while time.perf_counter() < end:
            h = torch.tanh(h @ self.w)
        return self.head(x.flatten(1)) + h.mean()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batches", type=int, default=4)
    p.add_argument("--step-seconds", type=float, default=6.5)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--data-share", type=float, default=0.04)
    args = p.parse_args()
    forward = args.step_seconds * FORWARD_SHARE
    per_item = args.step_seconds * args.data_share / args.batch_size
    loader = DataLoader(Images(args.batches * args.batch_size, per_item), batch_size=args.batch_size, num_workers=0)
    model = TimedNet(forward)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    t0 = time.perf_counter()
    for i, (x, y) in enumerate(loader):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        print(f"batch {i}: {time.perf_counter() - t0:.2f} s")
        t0 = time.perf_counter()


if __name__ == "__main__":
    main()
