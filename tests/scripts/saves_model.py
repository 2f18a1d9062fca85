"""Saves and copies its whole model every step, as checkpointing scripts do (torch.save(model),
copy.deepcopy for an EMA or best-model snapshot), and its loss module, which pickles its state its own
way (torchmetrics' Metric does; pytorch-forecasting keeps one in Lightning's checkpoint); prints where
the last checkpoint is."""
import copy
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from own_state_loss import OwnStateLoss

path = sys.argv[1]
loss_fn = OwnStateLoss()
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,))), batch_size=8)
for epoch in range(20):
    for x, y in loader:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        snapshot = copy.deepcopy(model)
        torch.save(model, path)
        torch.save(snapshot.state_dict(), path + ".state")
        torch.save({"loss": loss_fn, "copy": copy.deepcopy(loss_fn)}, path + ".loss")
print("saved", path)
