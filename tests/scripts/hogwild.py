"""Hogwild-style training: the model's parameters in shared memory, trained by processes that
torch.multiprocessing starts; the parent only evaluates at the end.

    python tests/scripts/hogwild.py [--trainers 2] [--steps 60] [--start-method spawn|fork]
"""

import argparse
import time

import torch
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 4))


def data(seed: int) -> TensorDataset:
    g = torch.Generator().manual_seed(seed)
    return TensorDataset(torch.randn(2048, 32, generator=g), torch.randint(0, 4, (2048,), generator=g))


def train(index: int, model: nn.Module, steps: int, delay: float) -> None:
    torch.set_num_threads(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(data(index), batch_size=32, shuffle=True)
    done = 0
    while done < steps:
        for x, y in loader:
            if delay:
                time.sleep(delay)  # per-step work in the loop (metrics, logging), planted
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            done += 1
            if done >= steps:
                break


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--delay", type=float, default=0.01)
    parser.add_argument("--start-method", default="spawn")
    args = parser.parse_args()
    mp.set_start_method(args.start_method, force=True)
    model = make_model()
    model.share_memory()
    trainers = [mp.Process(target=train, args=(i, model, args.steps, args.delay)) for i in range(args.trainers)]
    for p in trainers:
        p.start()
    for p in trainers:
        p.join()
    model.eval()
    with torch.no_grad():
        x, y = data(99).tensors
        accuracy = (model(x).argmax(1) == y).float().mean().item()
    print(f"accuracy {accuracy:.3f} after {args.trainers} trainers x {args.steps} steps")


if __name__ == "__main__":
    main()
