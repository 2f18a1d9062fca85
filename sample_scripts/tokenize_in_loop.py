"""A text classifier whose training loop tokenizes the raw sentences itself, in Python, every step.

Planted: the DataLoader hands out raw strings and the loop turns them into
hashed word and character-trigram ids (fastText-style) with Python loops,
between fetching the batch and the forward pass. That Python work is neither
data loading nor model compute: it holds the loop back on any hardware.
Fixes: tokenize once before training (or in the Dataset, so DataLoader workers
do it in parallel) and feed tensors of ids.
"""

TRAINPROBE_SAMPLE = {
    "plants": "Python tokenization (word + char-trigram hashing) inside the training loop",
    "verdict": {"cpu": "host", "gpu": "host"},
    "findings": {"cpu": ["host-overhead-in-loop"], "gpu": ["host-overhead-in-loop"]},
    "allow": {"cpu": [], "gpu": ["small-batch-underused-gpu", "launch-bound-small-ops", "optimizer-not-fused"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse
import zlib

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from _data import fake_sentences  # stands in for a review data set

BUCKETS = 1 << 12


def tokenize(sentences, device):
    """Hash every word and character trigram into BUCKETS ids: EmbeddingBag input and offsets."""
    ids, offsets = [], []
    for sentence in sentences:  # PLANTED: per-sentence, per-word Python work in the hot loop
        offsets.append(len(ids))
        for word in sentence.lower().split():
            padded = f"<{word}>"
            ids.append(zlib.crc32(padded.encode()) % BUCKETS)
            for i in range(len(padded) - 2):
                ids.append(zlib.crc32(padded[i:i + 3].encode()) % BUCKETS)
    return torch.tensor(ids, device=device), torch.tensor(offsets, device=device)


class BagOfNgrams(nn.Module):
    def __init__(self, dim=64, classes=2):
        super().__init__()
        self.embed = nn.EmbeddingBag(BUCKETS, dim, mode="mean")
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, classes))

    def forward(self, ids, offsets):
        return self.head(self.embed(ids, offsets))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--train-size", type=int, default=6144)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    sentences, labels = fake_sentences(args.train_size, words=60)
    train_loader = DataLoader(list(zip(sentences, labels)), batch_size=args.batch_size, shuffle=True)

    model = BagOfNgrams().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for batch_sentences, batch_labels in train_loader:
            ids, offsets = tokenize(batch_sentences, device)
            batch_labels = batch_labels.to(device)
            optimizer.zero_grad()
            loss = criterion(model(ids, offsets), batch_labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            if step == args.steps:
                return
        print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
