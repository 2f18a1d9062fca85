"""A hand-written loop run through Hugging Face accelerate (Accelerator(), accelerator.prepare,
accelerator.backward), in the style of accelerate's own examples, with mixed precision left off.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs accelerate. Random data.
"""

import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def main():
    accelerator = Accelerator(cpu=not torch.cuda.is_available())
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(8192, 128), torch.randint(0, 10, (8192,)))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(128, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=3 * len(loader))
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    for epoch in range(3):
        model.train()
        for inputs, targets in loader:
            loss = nn.functional.cross_entropy(model(inputs), targets)
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
        accelerator.print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
