"""Saves and copies its whole model every step, as checkpointing scripts do (torch.save(model),
copy.deepcopy for an EMA or best-model snapshot); prints where the last checkpoint is."""
import copy
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

path = sys.argv[1]
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,))), batch_size=8)
for epoch in range(20):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        snapshot = copy.deepcopy(model)
        torch.save(model, path)
        torch.save(snapshot.state_dict(), path + ".state")
print("saved", path)
