"""A text classifier whose Dataset tokenizes each raw sentence in __getitem__, with num_workers=0.

Planted: every item is tokenized again each time it is loaded, every epoch, by
a Python tokenizer (hashed word and character-trigram ids, fastText-style)
called from the Dataset's __getitem__, and the DataLoader has no workers, so
the tokenizing runs inside the training loop's wait for each batch.
Fixes: tokenize the whole data set once before training and keep the ids
(or, meanwhile, DataLoader workers).
"""

TRAINPROBE_SAMPLE = {
    "plants": "a Dataset that tokenizes every sentence in __getitem__ (num_workers=0)",
    "verdict": {"cpu": "input", "gpu": "input"},
    "findings": {"cpu": ["input-tokenize-bound"], "gpu": ["input-tokenize-bound"]},
    "allow": {"cpu": ["dataloader-too-few-workers"],
              "gpu": ["dataloader-too-few-workers", "small-batch-underused-gpu", "launch-bound-small-ops",
                      "optimizer-not-fused"]},
    "clean": False,
    "ci": True,
    "args": [],
}

import argparse
import zlib

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from _data import fake_sentences  # stands in for a review data set

BUCKETS = 1 << 12


def tokenize(sentence):
    """Hash every word and character trigram of one sentence into BUCKETS ids."""
    ids = []
    for word in sentence.lower().split():
        padded = f"<{word}>"
        ids.append(zlib.crc32(padded.encode()) % BUCKETS)
        for i in range(len(padded) - 2):
            ids.append(zlib.crc32(padded[i:i + 3].encode()) % BUCKETS)
    return ids


class Reviews(Dataset):
    def __init__(self, sentences, labels):
        self.sentences, self.labels = sentences, labels

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, index):
        return tokenize(self.sentences[index]), self.labels[index]  # PLANTED: tokenized on every load


def bag_batch(items):
    """EmbeddingBag input: the offset where each item starts, all ids of the batch, and the labels."""
    offsets, ids, labels = [], [], []
    for item_ids, label in items:
        offsets.append(len(ids))
        ids.extend(item_ids)
        labels.append(label)
    return torch.tensor(offsets), torch.tensor(ids), torch.tensor(labels)


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
    train_loader = DataLoader(Reviews(sentences, labels), batch_size=args.batch_size, shuffle=True,
                              collate_fn=bag_batch)

    model = BagOfNgrams().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for offsets, ids, batch_labels in train_loader:
            ids, offsets, batch_labels = ids.to(device), offsets.to(device), batch_labels.to(device)
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
