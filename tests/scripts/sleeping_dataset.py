"""An in-memory dataset whose __getitem__ sleeps (a stand-in for waiting on a lock or a web
service): the loop waits for data, but no file is read, so storage must not be blamed."""
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Sleepy(Dataset):
    def __init__(self):
        self.data = torch.randn(4096, 32)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        time.sleep(0.002)
        return self.data[i], i % 4


def main():
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(Sleepy(), batch_size=16, num_workers=2, shuffle=True)
    for epoch in range(20):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()


if __name__ == "__main__":
    main()
