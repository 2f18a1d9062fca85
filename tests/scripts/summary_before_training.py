"""A model counted once before training, as deep-person-reid's compute_model_complexity does (test set 28):
model.eval() and one forward with autograd on, for its FLOPs, then the training loop, then a validation under
torch.no_grad(). The one eval forward with a graph is not a validation of the model being trained.

Used by tests/test_memory_rules.py; plain PyTorch, random data.
"""
import torch
import torch.nn as nn


def count_flops(model, shape):
    model.eval()
    model(torch.zeros(shape))  # the summary's forward: eval mode, autograd on
    model.train()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
    count_flops(model, (1, 32))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(40, 16, 32)
    targets = torch.randint(0, 4, (40, 16))
    for x, y in zip(data, targets):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        for x in data[:4]:
            model(x)


if __name__ == "__main__":
    main()
