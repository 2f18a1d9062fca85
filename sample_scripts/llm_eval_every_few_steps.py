"""A small GPT on batches of 2 sequences of 256 tokens that evaluates every few steps, as language-model
tutorials do: every 5 steps, the loss on 2 training and 2 validation batches under torch.no_grad().

Planted: nothing that holds the training step back but the model's math; the evaluation is a
fifth of the time, by design (the user asked for a loss curve). The evaluation steps fall inside
the profiled window too, and must not make the training steps' fixed cost look large: a
tiny-batch finding here would be wrong. Expectations written before trainprobe was run on this
script.
"""

TRAINPROBE_SAMPLE = {
    "plants": "a 34 M-parameter GPT on 2 sequences of 256 tokens, evaluating every 5 steps: compute-bound",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": [], "gpu": []},
    # True of the script, not what it plants: fp32 on a CPU with bf16 units, ops a compiler would fuse,
    # AdamW's update one tensor at a time on a GPU.
    "allow": {"cpu": ["cpu-bf16-not-used", "compile-would-fuse", "low-mfu-small-batch"],
              "gpu": ["amp-not-used", "tf32-disabled", "optimizer-not-fused", "compile-would-fuse",
                      "low-tensor-core-use"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Block(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.norm2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, width: int, layers: int, heads: int, context: int):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, idx):
        x = self.tokens(idx) + self.positions(torch.arange(idx.shape[1], device=idx.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class Tokens(Dataset):
    """Random token sequences, made once (a tokenized corpus in memory)."""

    def __init__(self, count: int, context: int, vocab: int):
        g = torch.Generator().manual_seed(0)
        self.data = torch.randint(vocab, (count, context + 1), generator=g)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        row = self.data[i]
        return row[:-1], row[1:]


def evaluate(model, loaders, device, batches: int) -> list[float]:
    """The mean loss over a few batches of each loader, without building a graph."""
    model.eval()
    losses = []
    with torch.no_grad():
        for loader in loaders:
            total = 0.0
            for i, (idx, targets) in enumerate(loader):
                if i >= batches:
                    break
                logits = model(idx.to(device))
                total += F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.to(device).view(-1)).item()
            losses.append(total / batches)
    model.train()
    return losses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--context", type=int, default=256)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    parser.add_argument("--eval-every", type=int, default=5)
    parser.add_argument("--eval-batches", type=int, default=2)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = GPT(args.vocab, args.width, args.layers, 8, args.context).to(device)
    loader = DataLoader(Tokens(400, args.context, args.vocab), batch_size=args.batch_size, shuffle=True)
    validation = DataLoader(Tokens(40, args.context, args.vocab), batch_size=args.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    total = args.epochs * len(loader)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / 20) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    step = 0
    for epoch in range(args.epochs):
        for idx, targets in loader:
            idx, targets = idx.to(device), targets.to(device)
            logits = model(idx)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
            step += 1
            if step % args.eval_every == 0:
                train_loss, val_loss = evaluate(model, (loader, validation), device, args.eval_batches)
                print(f"epoch {epoch} step {step} train loss {train_loss:.3f} val loss {val_loss:.3f}")
            if args.steps and step >= args.steps:
                return


if __name__ == "__main__":
    main()
