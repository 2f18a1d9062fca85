"""A loop that reaches its model through helper functions of its own, as nerf-pytorch's does (render() ->
render_rays() -> run_network() -> batchify()): the line to wrap in autocast is the loop's call to render, not
the innermost helper's model(...). A model method (encode) calling a submodule is one more helper.

Used by tests/test_sites.py; plain PyTorch, random data.
"""
import torch
import torch.nn as nn


class Field(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(3, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 4)

    def encode(self, points):
        return self.encoder(points)

    def forward(self, points):
        return self.head(self.encode(points))


def batchify(model, points, chunk=256):
    return torch.cat([model(points[i:i + chunk]) for i in range(0, points.shape[0], chunk)])


def render(model, rays):
    return batchify(model, rays).mean(dim=1)


def train():
    torch.manual_seed(0)
    model = Field()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(200):
        rays = torch.rand(1024, 3)
        colour = render(model, rays)
        loss = ((colour - 0.5) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train()
