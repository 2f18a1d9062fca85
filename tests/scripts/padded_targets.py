"""An encoder-decoder in miniature, trained on targets its collator pads to a fixed length with -100.

Each sample is ``--frames`` x 32 features (an audio clip's, say) and a target of 8 to 40 tokens; the collate
function pads every target to ``--max-target`` (default 128) with -100, the ignore index, as a seq2seq
collator asked for padding="max_length" does (``--max-target 0``: to each batch's longest). The batch is a dict of ``input_features`` and ``labels``, with
no attention mask. The decoder runs over all 128 positions and projects each onto a 2000-token vocabulary,
so most of the step is spent on padding."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

VOCAB = 2000


class Clips(Dataset):
    def __init__(self, n, frames):
        g = torch.Generator().manual_seed(0)
        self.features = torch.randn(n, frames, 32, generator=g)
        self.targets = [torch.randint(1, VOCAB, (int(torch.randint(8, 41, (1,), generator=g)),), generator=g)
                        for _ in range(n)]

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        return self.features[i], self.targets[i]


def pad_targets(batch, max_target):
    features = torch.stack([f for f, _ in batch])
    max_target = max_target or max(len(t) for _, t in batch)  # 0: each batch to its own longest
    labels = torch.full((len(batch), max_target), -100, dtype=torch.long)
    for row, (_, target) in enumerate(batch):
        labels[row, :len(target)] = target
    return {"input_features": features, "labels": labels}


class TinySeq2Seq(nn.Module):
    def __init__(self, width=256):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(32, width), nn.GELU(), nn.Linear(width, width))
        self.embed = nn.Embedding(VOCAB, width)
        layer = nn.TransformerDecoderLayer(width, 4, 4 * width, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, 2)
        self.head = nn.Linear(width, VOCAB)

    def forward(self, input_features, labels):
        memory = self.encoder(input_features)
        tokens = self.embed(labels.clamp(min=0))
        logits = self.head(self.decoder(tokens, memory))
        return nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--samples", type=int, default=320)
    p.add_argument("--frames", type=int, default=16)
    p.add_argument("--max-target", type=int, default=128, help="0: pad each batch to its own longest target")
    args = p.parse_args()
    torch.manual_seed(0)
    loader = DataLoader(Clips(args.samples, args.frames), batch_size=8, shuffle=True,
                        collate_fn=lambda batch: pad_targets(batch, args.max_target))
    model = TinySeq2Seq()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for epoch in range(args.epochs):
        for batch in loader:
            loss = model(**batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
