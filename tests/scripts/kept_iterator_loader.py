"""A DataLoader subclass that keeps its iterator across epochs, made with ``_get_iterator()`` (as
ultralytics' InfiniteDataLoader does, to reuse its workers), and never calls ``DataLoader.__iter__``.
Each sample takes ``--sample-ms`` (default 2) to make, in the main process: the loop waits for data."""
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SlowSquares(Dataset):
    def __init__(self, n, ms):
        self.n, self.ms = n, ms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.ms / 1000)
        x = torch.full((16,), float(i % 7))
        return x, x.sum(dim=0, keepdim=True)


class KeptIteratorLoader(DataLoader):
    """Yields one pass per iter() from an iterator made once."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kept = None

    def __iter__(self):
        if self.kept is None:
            self.kept = self._get_iterator()
        for _ in range(len(self)):
            try:
                yield next(self.kept)
            except StopIteration:  # (ultralytics' sampler repeats instead: its iterator never ends)
                self.kept = self._get_iterator()
                yield next(self.kept)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--sample-ms", type=float, default=2.0)
    args = p.parse_args()
    torch.manual_seed(0)
    loader = KeptIteratorLoader(SlowSquares(256, args.sample_ms), batch_size=8)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
