"""Training batches indexed straight from tensors (no DataLoader), validation through a DataLoader under
torch.no_grad() after each epoch: the only DataLoader is not the training one (tests/test_training_loader.py).
Each step also runs the model on one sample's features (a 1-d input, as an RL policy acts): not its batch."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def batches(x, y, size):
    order = torch.randperm(len(x))
    for i in range(len(x) // size):
        index = order[i * size:(i + 1) * size]
        yield x[index], y[index]


def main():
    torch.manual_seed(0)
    x, y = torch.randn(4096, 32), torch.randint(0, 4, (4096,))
    val_loader = DataLoader(TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,))), batch_size=256)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(12):
        model.train()
        for inputs, targets in batches(x, y, 64):
            model(inputs[0])  # one sample's features, as an RL policy acting on an observation: not the batch
            loss = nn.functional.cross_entropy(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            correct = sum((model(a).argmax(1) == b).sum().item() for a, b in val_loader)
        print(f"epoch {epoch}: val acc {correct / 512:.2f}")


if __name__ == "__main__":
    main()
