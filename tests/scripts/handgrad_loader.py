"""Logistic regression written by hand on bare tensors: the gradient by a matrix product and the update by
hand, with no backward(), no optimizer and no nn.Module. Each iteration draws a fresh training batch and a
fresh validation batch, ``next(iter(loader))``, as a notebook does with a loader whose one batch is the
whole set, and making them takes most of the iteration."""
import argparse
import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __init__(self, count: int, features: int, seed: int) -> None:
        self.count, self.features, self.seed = count, features, seed

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int):
        x = torch.randn(self.features, generator=torch.Generator().manual_seed(self.seed + index))
        return x, float(x[0] > 0)


parser = argparse.ArgumentParser()
parser.add_argument("--iterations", type=int, default=200)
args = parser.parse_args()

train = DataLoader(Samples(64, 256, 0), batch_size=64, shuffle=True)
val = DataLoader(Samples(16, 256, 1000), batch_size=16)
w = torch.zeros(256, 1)
for i in range(args.iterations):
    x, y = next(iter(train))
    val_x, val_y = next(iter(val))
    predicted = torch.sigmoid(x @ w)
    w -= 0.5 * x.t() @ (predicted - y[:, None].float()) / len(x)
    accuracy = ((torch.sigmoid(val_x @ w) > 0.5).float().squeeze(1) == val_y).float().mean()
    if i % 20 == 0:
        print(f"iteration {i}: validation accuracy {accuracy.item():.2f}")
