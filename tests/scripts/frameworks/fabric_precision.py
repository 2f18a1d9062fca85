"""A language model trained with Lightning Fabric, its settings read from command-line flags as litgpt's and
many research scripts' are: Fabric(precision=args.precision) with --precision left at its default "32-true"
on a CPU that multiplies bfloat16 faster, and a loop of the script's own (fabric.backward, optimizer.step).

Recorded for trainprobe's tests (tests/data/runs/frameworks/); random tokens, a model built from a tiny config.
"""

import argparse

import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TinyLM(nn.Module):
    def __init__(self, vocab=512, width=192, layers=2, heads=4, context=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.zeros(context, width))
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(width, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(context), persistent=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        return self.head(self.blocks(x, mask=self.mask, is_causal=True))


def parse_args():
    parser = argparse.ArgumentParser(description="Language model pretraining with Fabric")
    parser.add_argument("--precision", default="32-true", choices=["32-true", "bf16-mixed", "bf16-true", "16-mixed"])
    parser.add_argument("--batch-size", default=16, type=int)
    parser.add_argument("--epochs", default=2, type=int)
    parser.add_argument("--lr", default=3e-4, type=float)
    return parser.parse_args()


def main():
    args = parse_args()
    fabric = L.Fabric(accelerator="cpu", devices=1, precision=args.precision)
    fabric.seed_everything(0)
    tokens = torch.randint(0, 512, (768, 65))
    loader = DataLoader(TensorDataset(tokens[:, :-1], tokens[:, 1:]), batch_size=args.batch_size, shuffle=True)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(loader)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))
    model.train()
    for epoch in range(args.epochs):
        for step, (inputs, targets) in enumerate(loader):
            logits = model(inputs)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
            fabric.backward(loss)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
            if step % 20 == 0:
                fabric.print(f"epoch {epoch} step {step} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
