"""A transformer fine-tune that runs out of memory at its longest batch, mid-epoch.

Planted: a small GPT-like language model (built from a config, random tokens)
is fine-tuned on documents of varying length, each batch padded to its longest
document, as variable-length fine-tunes are. Most documents are short posts of
a few dozen to 160 tokens; one in a hundred is a long article of up to 2048. The
first batch that holds one needs many times the memory of a typical batch, and
the run dies there out of memory, after dozens of good steps.

The memory limit is real: on a CPU the script caps its own data segment (the
heap every tensor lives in, as `ulimit -d` would) at --memory-limit-gb, standing
in for a small machine or container; the allocation that does not fit fails
with the allocator's error. On a GPU it keeps to --gpu-memory-gb of the card
(torch.cuda.set_per_process_memory_fraction, a 16 GB card like Colab's T4) and
fails with CUDA's out-of-memory error. The fix trainprobe should name: gradient
accumulation over micro-batches (--batch-size 2 --accumulation-steps 4 keeps the
effective batch of 8 and fits), with the numbers.
"""

TRAINPROBE_SAMPLE = {
    "plants": "variable-length fine-tune: the first long batch (about 14x the tokens) runs out of memory mid-epoch",
    "verdict": {"cpu": "memory", "gpu": "memory"},
    "findings": {"cpu": ["memory-near-limit"], "gpu": ["memory-near-limit"]},
    "allow": {"cpu": ["small-batch-overhead"], "gpu": ["small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import math
import resource
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

PAD = 0


@dataclass
class GPTConfig:
    vocab_size: int = 4096
    max_len: int = 2048
    n_layer: int = 3
    n_head: int = 4
    d_model: int = 192


class SelfAttention(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.n_head = cfg.n_head
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.n_head, d // self.n_head).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = SelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(),
                                 nn.Linear(4 * cfg.d_model, cfg.d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.head.weight = self.tok.weight  # tied input and output embeddings
        for emb in (self.tok, self.pos):
            nn.init.normal_(emb.weight, std=0.02)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos(torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class Documents(Dataset):
    """Random token documents: short posts, and one long article in a hundred."""

    def __init__(self, n: int, cfg: GPTConfig, long_share: float = 0.01, seed: int = 0):
        g = torch.Generator().manual_seed(seed)
        long = torch.rand(n, generator=g) < long_share
        short_len = torch.randint(32, 161, (n,), generator=g)
        long_len = torch.randint(1536, cfg.max_len + 1, (n,), generator=g)
        self.lengths = torch.where(long, long_len, short_len).tolist()
        self.vocab, self.seed = cfg.vocab_size, seed

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 100003 + i)
        return torch.randint(1, self.vocab, (self.lengths[i],), generator=g)


def pad_to_longest(docs):
    """Each batch padded to its longest document (inputs, and next-token targets with the padding ignored)."""
    longest = max(len(d) for d in docs)
    batch = torch.full((len(docs), longest), PAD, dtype=torch.long)
    for i, d in enumerate(docs):
        batch[i, :len(d)] = d
    return batch[:, :-1], batch[:, 1:]


def limit_memory(args, device):
    """The machine's limit this run stands in for (see the module's docstring)."""
    if device == "cuda":
        total = torch.cuda.get_device_properties(0).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, args.gpu_memory_gb * 2**30 / total))
    elif args.memory_limit_gb > 0:
        limit = int(args.memory_limit_gb * 2**30)
        _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--accumulation-steps", type=int, default=1, help="micro-batches per optimizer step")
    parser.add_argument("--documents", type=int, default=4000)
    parser.add_argument("--long-share", type=float, default=0.01, help="share of long articles (0: short posts only)")
    parser.add_argument("--memory-limit-gb", type=float, default=2.0, help="CPU: the data-segment limit (0: none)")
    parser.add_argument("--gpu-memory-gb", type=float, default=16.0, help="GPU: the share of the card to keep to")
    parser.add_argument("--gpu-size", action=argparse.BooleanOptionalAction, default=None,
                        help="a GPT-2-small-sized model (default on a GPU)")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many optimizer steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    cfg = GPTConfig()
    if args.gpu_size if args.gpu_size is not None else device == "cuda":
        cfg = GPTConfig(vocab_size=50304, n_layer=12, n_head=12, d_model=768)
    limit_memory(args, device)
    torch.manual_seed(0)

    loader = DataLoader(Documents(args.documents, cfg, args.long_share), batch_size=args.batch_size, shuffle=True,
                        collate_fn=pad_to_longest, generator=torch.Generator().manual_seed(4))
    model = GPT(cfg).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)
    updates = args.epochs * math.ceil(len(loader) / args.accumulation_steps)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-4, total_steps=updates)

    step = 0
    for epoch in range(args.epochs):
        for i, (inputs, targets) in enumerate(loader):
            inputs, targets = inputs.to(device), targets.to(device)
            logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), targets.reshape(-1), ignore_index=PAD)
            (loss / args.accumulation_steps).backward()
            if (i + 1) % args.accumulation_steps:
                continue
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            if step % 10 == 0:
                print(f"epoch {epoch} step {step}: loss {loss.item():.3f} (batch {tuple(inputs.shape)})")
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
