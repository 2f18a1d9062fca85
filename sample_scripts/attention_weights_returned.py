"""A small vision transformer whose blocks call nn.MultiheadAttention themselves and throw its weights away.

Planted: `h, _ = self.attention(x, x, x)` keeps need_weights at its default, True, so every call makes the whole
(batch x 4 heads x 256 x 256) attention weights, averages them over the heads and returns them, on the module's
unfused path. With need_weights=False the module runs scaled_dot_product_attention's fused kernel instead; the
weights are never used here.
"""

TRAINPROBE_SAMPLE = {
    "plants": "nn.MultiheadAttention called with need_weights left True, its weights thrown away",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["attention-weights-returned"], "gpu": ["attention-weights-returned"]},
    "allow": {"cpu": ["cpu-bf16-not-used", "compile-would-fuse", "low-mfu-small-batch"],
              "gpu": ["small-batch-underused-gpu", "amp-not-used", "launch-bound-small-ops"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, x):
        h = self.norm1(x)
        # PLANTED: need_weights is left True; the weights are made, averaged and thrown away.
        h, _ = self.attention(h, h, h)
        x = x + h
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    def __init__(self, width=32, heads=4, depth=2, patch=4, size=64, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, width, patch, stride=patch)
        self.position = nn.Parameter(torch.zeros(1, (size // patch) ** 2, width))
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(depth))
        self.head = nn.Linear(width, classes)

    def forward(self, images):
        x = self.embed(images).flatten(2).transpose(1, 2) + self.position
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(1))


def make_images(n, size=64, classes=10, seed=0):
    """Random images labelled by a fixed random linear "teacher" on their colour means."""
    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(n, 3, size, size, generator=generator)
    teacher = torch.randn(3, classes, generator=torch.Generator().manual_seed(1234))
    return TensorDataset(images, (images.mean((2, 3)) @ teacher).argmax(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--train-size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    loader = DataLoader(make_images(args.train_size), batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = TinyViT().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))

    step = 0
    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
