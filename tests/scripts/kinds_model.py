"""A small model whose direct children do one kind of work each, trained on made-up data: an
embedding (indexing), an LSTM (matmul), a layer norm (normalization) and a linear head (matmul).
The optimizer's implementation is chosen on the command line: for-loop, foreach or fused."""

import sys

import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab: int = 500, dim: int = 64, classes: int = 10):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.LSTM(dim, dim, batch_first=True)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        hidden, _ = self.encoder(self.embed(tokens))
        return self.head(self.norm(hidden[:, -1]))


def main() -> None:
    kind = sys.argv[1] if len(sys.argv) > 1 else "for-loop"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    torch.manual_seed(0)
    model = Tagger()
    flags = {"for-loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}[kind]
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, **flags)
    tokens = torch.randint(0, 500, (32, 20))
    labels = torch.randint(0, 10, (32,))
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(tokens), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
