"""A small MLP whose four blocks run under activation checkpointing (torch.utils.checkpoint, non-reentrant): each
backward runs the four blocks' forwards again. Used by tests/test_memory_rules.py and tests/test_fix_lines.py (the
checkpoint(...) line, where a checkpointing fix goes, as in fast-DiT's DiT.forward, test set 28); random data.
"""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(256, 256), nn.GELU()) for _ in range(4))
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return self.head(x)


def main():
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(120):
        x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
