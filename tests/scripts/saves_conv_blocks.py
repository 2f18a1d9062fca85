"""A small convolution net of repeated blocks that saves its whole model every step (torch.save(model)
and a deepcopy's state, as checkpointing scripts do); the what-if's channels_last and activation
checkpointing act on such a model. Prints where the last checkpoint is."""
import copy
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from conv_block import Block

path = sys.argv[1]
model = nn.Sequential(Block(), Block(), Block(), nn.Flatten(), nn.Linear(4 * 8 * 8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(torch.randn(256, 4, 8, 8), torch.randint(0, 2, (256,))), batch_size=16)
for epoch in range(4):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        torch.save(model, path)
        torch.save(copy.deepcopy(model).state_dict(), path + ".state")
print("saved", path)
