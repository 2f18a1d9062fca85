"""A small character-level transformer trained with attention dropout inside scaled_dot_product_attention.

Planted: dropout_p=0.1 in the attention call, as nanoGPT-style models write it. On a CPU the fused flash kernel
does not run with attention dropout, so every call takes the math path: the whole (batch x heads x 256 x 256)
score tensor is made, softmaxed and dropped out as separate ops, for heads only 16 wide. Dropout on the residual
outputs, where it is cheap, regularizes as well; without it in the attention the fused kernel runs.
"""

TRAINPROBE_SAMPLE = {
    "plants": "attention dropout in scaled_dot_product_attention on a CPU: its unfused math path",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["attention-math-path"], "gpu": []},
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
    def __init__(self, width, heads, dropout):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        batch, length, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(width, dim=2)
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        # PLANTED: attention dropout sends scaled_dot_product_attention to its math path on a CPU.
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(batch, length, width))
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab=96, width=64, heads=4, layers=3, length=256, dropout=0.1):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, width), nn.Embedding(length, width)
        self.blocks = nn.ModuleList(Block(width, heads, dropout) for _ in range(layers))
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position(torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def make_text(n, length, vocab=96, seed=0):
    """Sequences from a fixed random bigram table, so there is something to learn."""
    generator = torch.Generator().manual_seed(seed)
    table = torch.randint(0, vocab, (vocab,), generator=generator)
    starts = torch.randint(0, vocab, (n,), generator=generator)
    tokens = [starts]
    for _ in range(length):
        tokens.append(table[tokens[-1]])
    tokens = torch.stack(tokens, dim=1)
    return TensorDataset(tokens[:, :-1], tokens[:, 1:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--train-size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    loader = DataLoader(make_text(args.train_size, 256), batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = TinyGPT().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))

    step = 0
    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.reshape(-1))
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
