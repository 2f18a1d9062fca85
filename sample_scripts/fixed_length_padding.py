"""A small transformer text classifier whose texts are all padded to 256 tokens, most of them short.

Planted: the tokenizer is asked for padding="max_length", as many fine-tuning tutorials do, so every batch is
256 tokens wide while its longest review is about 100 and most are 20-60. The model computes on each padding
slot as on a real token (linear layers, attention, backward). Padding each batch to its own longest review
(a collate function that pads per batch) keeps the answers and drops most of the work.
"""

TRAINPROBE_SAMPLE = {
    "plants": "every text padded to max_length=256 while most are 20-60 tokens",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["fixed-length-padding"], "gpu": ["fixed-length-padding"]},
    "allow": {"cpu": ["cpu-bf16-not-used", "compile-would-fuse"],
              "gpu": ["small-batch-underused-gpu", "amp-not-used", "launch-bound-small-ops"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

WORDS = ("good bad movie plot actor scene slow great boring fun story music ending long short dull brilliant "
         "cast script funny sad dark light love hate watch again never always best worst").split()


class WordTokenizer:
    """Words to ids, with the padding options of a Hugging Face tokenizer."""

    def __init__(self, words):
        self.ids = {word: i + 2 for i, word in enumerate(words)}  # 0 pads, 1 is unknown
        self.vocab_size = len(words) + 2

    def __call__(self, text, padding=False, max_length=None, truncation=False):
        ids = [self.ids.get(word, 1) for word in text.split()]
        if truncation and max_length:
            ids = ids[:max_length]
        mask = [1] * len(ids)
        if padding == "max_length":
            ids += [0] * (max_length - len(ids))
            mask += [0] * (max_length - len(mask))
        return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask)}


class Reviews(Dataset):
    """Generated reviews of 8 to 100 words (most 20-60), labelled by the share of positive words."""

    def __init__(self, n, tokenizer, max_length, seed=0):
        rng = random.Random(seed)
        positive = set(WORDS[::2])
        self.items = []
        for _ in range(n):
            length = min(100, max(8, int(rng.gauss(40, 15))))
            words = [rng.choice(WORDS) for _ in range(length)]
            label = int(sum(w in positive for w in words) * 2 > length)
            # PLANTED: every review padded to max_length, however short it is.
            encoded = tokenizer(" ".join(words), padding="max_length", max_length=max_length, truncation=True)
            self.items.append((encoded, label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        encoded, label = self.items[index]
        return {**encoded, "labels": torch.tensor(label)}


class Classifier(nn.Module):
    def __init__(self, vocab_size, width=128, heads=4, layers=2, max_length=256):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, width, padding_idx=0)
        self.position = nn.Parameter(torch.zeros(1, max_length, width))
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(width, 2)

    def forward(self, input_ids, attention_mask):
        x = self.embed(input_ids) + self.position[:, : input_ids.shape[1]]
        x = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        mask = attention_mask.unsqueeze(-1).to(x.dtype)
        return self.head((x * mask).sum(1) / mask.sum(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--train-size", type=int, default=2048)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    tokenizer = WordTokenizer(WORDS)
    loader = DataLoader(Reviews(args.train_size, tokenizer, args.max_length), batch_size=args.batch_size,
                        shuffle=True, drop_last=True)
    model = Classifier(tokenizer.vocab_size, max_length=args.max_length).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        for batch in loader:
            batch = {key: value.to(device) for key, value in batch.items()}
            logits = model(batch["input_ids"], batch["attention_mask"])
            loss = criterion(logits, batch["labels"])
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
