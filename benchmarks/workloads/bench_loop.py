"""A training loop that times its own steps, for benchmarks/overhead.py.

It times itself the same way whether it runs plainly or under the probe, so
the two can be compared. --model tiny does almost no math (its steps are the
loop and the hooks), --model mlp takes a few ms per step, --model cnn is a
typical small CIFAR-style convnet.
"""
import argparse
import json
import time

import torch
from torch.utils.data import DataLoader, TensorDataset


def build(model):
    if model == "tiny":  # almost no math: what is left of a step is the loop and the probe's hooks
        net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
        data = TensorDataset(torch.randn(4096, 8), torch.randint(0, 2, (4096,)))
        return net, data, 4
    if model == "mlp":
        net = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                  torch.nn.ReLU(), torch.nn.Linear(512, 10))
        data = TensorDataset(torch.randn(4096, 256), torch.randint(0, 10, (4096,)))
        return net, data, 64
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.BatchNorm2d(64), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(64 * 8 * 8, 10))
    data = TensorDataset(torch.randn(2048, 3, 32, 32), torch.randint(0, 10, (2048,)))
    return net, data, 32


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)  # steadier on a shared 2-core machine
    net, data, batch = build(args.model)
    loader = DataLoader(data, batch_size=batch, shuffle=True, drop_last=True)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    times = []
    last = None
    step = 0
    while step < args.steps + args.warmup:
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
            now = time.perf_counter()
            if last is not None and step >= args.warmup:
                times.append(now - last)
            last = now
            step += 1
            if step >= args.steps + args.warmup:
                break
    with open(args.out, "w") as fh:
        json.dump(times, fh)


if __name__ == "__main__":
    main()
