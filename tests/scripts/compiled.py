"""A small loop whose model and optimizer step are compiled (Dynamo with the eager backend: no C compiler needed).

Prints how many graphs Dynamo built and how often it recompiled, so a test can check that the
probe's hooks were not traced into the graphs (which would recompile every step).
"""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
compiled = torch.compile(model, backend="eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,))), batch_size=16)


@torch.compile(backend="eager")
def step():
    opt.step()


for epoch in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(compiled(x), y).backward()
        step()

from torch._dynamo.utils import counters  # noqa: E402

recompiles = sum(counters["recompiles"].values()) if "recompiles" in counters else 0
print("DYNAMO", counters["stats"]["unique_graphs"], recompiles, flush=True)
