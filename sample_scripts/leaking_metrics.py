"""A language model whose loop keeps every step's logits for the epoch's metrics: memory grows each step.

Planted: a word-level LSTM language model trained with truncated
backpropagation (the hidden state is detached between batches, as it should
be) collects each batch's output logits and targets in lists, to report the
epoch's token accuracy at its end. backward frees each step's graph, but the
logits themselves stay: batch x tokens x vocabulary floats (8 MB) more every
step, until the epoch ends or the memory does. Keeping the number of correct
predictions per step (or the argmax) instead costs nothing. Everything else is
clean.
"""

TRAINPROBE_SAMPLE = {
    "plants": "every step's logits kept in a list for the epoch's accuracy: 8 MB more memory each step",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["memory-grows-each-step"], "gpu": ["memory-grows-each-step"]},
    "allow": {"cpu": [], "gpu": ["launch-bound-small-ops", "small-batch-underused-gpu"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class WordLM(nn.Module):
    def __init__(self, vocab: int, dim: int = 128, hidden: int = 256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, tokens, state=None):
        out, state = self.lstm(self.embed(tokens), state)
        return self.decoder(out), state


def make_corpus(tokens: int, vocab: int, seed: int = 0) -> torch.Tensor:
    """Random text with some structure: each word depends on the one before it (a fixed random bigram table)."""
    g = torch.Generator().manual_seed(seed)
    table = torch.randint(0, vocab, (vocab, 4), generator=g)
    words = torch.empty(tokens, dtype=torch.long)
    words[0] = 0
    picks = torch.randint(0, 4, (tokens,), generator=g)
    for i in range(1, tokens):
        words[i] = table[words[i - 1], picks[i]]
    return words


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--bptt", type=int, default=32, help="tokens per sequence and step")
    parser.add_argument("--vocab", type=int, default=4000)
    parser.add_argument("--tokens", type=int, default=400_000)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    corpus = make_corpus(args.tokens, args.vocab)
    columns = corpus.numel() // args.batch_size
    data = corpus[:columns * args.batch_size].view(args.batch_size, columns).to(device)  # one stream per row

    model = WordLM(args.vocab).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, fused=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * (columns // args.bptt))

    step = 0
    for epoch in range(args.epochs):
        state = None
        epoch_logits, epoch_targets = [], []
        for start in range(0, columns - args.bptt - 1, args.bptt):
            inputs = data[:, start:start + args.bptt]
            targets = data[:, start + 1:start + 1 + args.bptt]
            if state is not None:
                state = tuple(s.detach() for s in state)  # truncated backpropagation: cut the last batch's graph
            logits, state = model(inputs, state)
            loss = F.cross_entropy(logits.reshape(-1, args.vocab), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            # PLANTED: the whole logits tensor of every step is kept until the epoch ends, for one number.
            epoch_logits.append(logits)
            epoch_targets.append(targets)
            step += 1
            if step == args.steps:
                return
        accuracy = (torch.cat(epoch_logits).argmax(-1) == torch.cat(epoch_targets)).float().mean()
        print(f"epoch {epoch}: loss {loss.item():.3f}, token accuracy {accuracy.item():.3f}")


if __name__ == "__main__":
    main()
