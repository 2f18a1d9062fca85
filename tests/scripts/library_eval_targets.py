"""A loop that hands its model to a library which runs it in eval mode with autograd on, as an RL library
computing its targets does (tianshou's DQN, test set 12): the library's code calls the model, not a line of
this script. The script also validates on its own, in eval mode without no_grad, every fifth step.

Usage: python library_eval_targets.py LIBRARY_DIR [STEPS]. LIBRARY_DIR holds ``rl_targets.py`` (a test
writes it into a folder named site-packages, which is where a library lives).
"""

import sys

import torch
import torch.nn as nn

sys.path.insert(0, sys.argv[1])
import rl_targets  # noqa: E402  (the library, from the folder given)

steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(steps):
    observations = torch.randn(32, 16)
    targets = rl_targets.targets(model, observations)
    loss = (model(observations) - targets).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        model.eval()
        model(torch.randn(32, 16))  # the script's own validation, without no_grad
        model.train()
