"""No __main__ guard, DataLoader workers under fork: fine under plain python, fine under the probe."""
import torch
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in DataLoader(data, batch_size=16, num_workers=2, multiprocessing_context="fork"):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()
print("unguarded done")
