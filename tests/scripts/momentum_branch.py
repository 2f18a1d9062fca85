"""A BYOL-style loop: the model's momentum copy is a child the loop calls itself, outside the model's own
forward (``model.forward_momentum(x)``), so it is a model of its own to the probe as well as a child."""
import copy

import torch
from torch import nn


class Siamese(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(*[layer for _ in range(4) for layer in (nn.Linear(512, 512), nn.ReLU())])
        self.head = nn.Linear(512, 64)
        self.backbone_momentum = copy.deepcopy(self.backbone)
        self.head_momentum = copy.deepcopy(self.head)
        for p in (*self.backbone_momentum.parameters(), *self.head_momentum.parameters()):
            p.requires_grad = False

    def forward(self, x):
        return self.head(self.backbone(x))

    def forward_momentum(self, x):
        return self.head_momentum(self.backbone_momentum(x)).detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Siamese()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(60):
        x0, x1 = torch.randn(256, 512), torch.randn(256, 512)
        p0, z1 = model(x0), model.forward_momentum(x1)
        p1, z0 = model(x1), model.forward_momentum(x0)
        loss = -(nn.functional.cosine_similarity(p0, z1).mean() + nn.functional.cosine_similarity(p1, z0).mean())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
