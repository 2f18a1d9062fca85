"""A flag-driven script whose model a helper builds and whose DataLoader writes its batch size as a number, as
FixMatch's (test set 26) and a LightningCLI course script's (set 26) do:

- main() calls create_model(), which calls build_net(): the line to wrap or move the model is main()'s
  `model = create_model(args)`, where the script holds it, not build_net()'s `Net(...)`;
- main() then moves the model to its device (`model.to(device)`, the CPU here): that line, where the model is
  ready to train, is where torch.compile or channels_last go (FixMatch's expert, set 26);
- the --batch-size flag is parsed but the DataLoader is built with `batch_size=8,` on a line of its own, so
  no value of the flag reaches it: a batch-size fix names that line, never the flag.

Used by tests/test_sites.py; plain PyTorch, random data.
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3, padding=1)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).mean(dim=(2, 3)))


def build_net(width):
    return Net(width)


def create_model(args):
    return build_net(args.width)


def make_loader():
    data = TensorDataset(torch.randn(512, 3, 16, 16), torch.randint(0, 10, (512,)))
    return DataLoader(
        data,
        shuffle=True,
        batch_size=8,
    )


def train(model, loader, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    done = 0
    while done < steps:
        for images, labels in loader:
            loss = nn.functional.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            done += 1
            if done == steps:
                break


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = create_model(args)
    device = torch.device("cpu")
    model.to(device)
    train(model, make_loader(), args.steps)


if __name__ == "__main__":
    main()
