"""Times its own loop by hand (data wait, forward, backward, optimizer) and saves the times,
so a test can check that the probe's per-step split agrees with a hand-timed loop."""
import json
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Jitter(torch.nn.Module):
    """A transform that is a module, as torchvision's are: called while the DataLoader makes a
    batch in this process, its time is data loading, not the model's forward."""

    def forward(self, x):
        end = time.perf_counter() + 0.0002
        while time.perf_counter() < end:
            pass
        return x + 0.01 * torch.randn_like(x)


class SlowDataset(Dataset):
    def __init__(self):
        self.transform = Jitter()

    def __len__(self):
        return 100000

    def __getitem__(self, i):
        time.sleep(0.0005)  # 16 samples per batch: ~8 ms of waiting per step, ~11 ms with the transform
        return self.transform(torch.randn(256)), i % 10


def main(out_path):
    loader = DataLoader(SlowDataset(), batch_size=16)
    model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                torch.nn.ReLU(), torch.nn.Linear(1024, 10))
    opt = torch.optim.Adam(model.parameters())
    times = []
    it = iter(loader)
    while True:
        t0 = time.perf_counter()
        x, y = next(it)
        t1 = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        opt.step()
        t4 = time.perf_counter()
        opt.zero_grad()
        # Free this step's batch before the next fetch's timer starts. Rebound by ``x, y = next(it)``,
        # it would be freed inside the hand timer's data wait, after the probe's wait has ended: under
        # the probe that free now and then took ~1.1 ms (a few steps in a hundred; plain python never),
        # and such steps failed the step-by-step agreement (CI at 3b65e03, 131 of 151).
        del x, y, loss
        times.append({"data_wait": t1 - t0, "forward": t2 - t1, "backward": t3 - t2, "optimizer": t4 - t3})
        with open(out_path, "w") as fh:  # rewritten each step: the probe stops us at any step
            json.dump(times, fh)


if __name__ == "__main__":
    main(sys.argv[1])
