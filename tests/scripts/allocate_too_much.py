"""Trains a few steps, then asks for 200 GB (run under `ulimit -v 8000000` it fails as a memory blow-up
would): recorded as tests/data/runs/failures/cpu_out_of_memory.json."""
import torch
model = torch.nn.Linear(64, 64)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(200):
    x = torch.randn(32, 64)
    loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step == 30:
        big = torch.empty(200_000_000_000, dtype=torch.uint8)  # 200 GB
