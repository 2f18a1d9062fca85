"""A hand-made loop whose own Python is spread thin: a progress bar's set_postfix, .item(), random
numbers, list indexing and a small add_noise helper, none of which dominates.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs tqdm. The model is tiny so that
the loop's own code is a large share of the step.
"""

import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


def add_noise(x, scale):
    return x + scale * torch.randn_like(x)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)  # a tiny model: one thread, so that busy neighbours do not stall its math
    random.seed(0)
    data = TensorDataset(torch.randn(4096, 32), torch.randint(0, 4, (4096,)))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    history = []
    scales = [0.01, 0.02, 0.05]
    for epoch in range(20):
        bar = tqdm(loader, mininterval=0)
        for step, (x, y) in enumerate(bar):
            x = add_noise(x, scales[step % len(scales)])
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history.append(loss.item())
            recent = history[-500:]
            jitter = [random.random() for _ in range(200)]
            bar.set_postfix(loss=sum(recent) / len(recent), jitter=max(jitter), lr=optimizer.param_groups[0]["lr"])


if __name__ == "__main__":
    main()
