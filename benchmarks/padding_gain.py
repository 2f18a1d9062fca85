"""Measure what padding each batch to its own longest text gains on sample_scripts/fixed_length_padding.py.

    python benchmarks/padding_gain.py [--steps 60] [--batch-size 32]

Two copies of the sample's model train side by side in one process, step by step in turn on the same
batches: one on the batches as the sample makes them (every text padded to 256 tokens), one on each batch
cut to its longest row. Prints each one's mean step and the ratio, with a bootstrap interval over the
pairs: the measured counterpart of the estimate `fixed-length-padding` gives on the sample's run.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "sample_scripts"))

from fixed_length_padding import WORDS, Classifier, Reviews, WordTokenizer  # noqa: E402
from side_by_side import arguments, interleaved, report, timed_step  # noqa: E402


def _trimmed(batch: dict) -> dict:
    longest = int(batch["attention_mask"].sum(dim=1).max())
    return {**batch, "input_ids": batch["input_ids"][:, :longest],
            "attention_mask": batch["attention_mask"][:, :longest]}


def main() -> None:
    args = arguments(steps=60, batch_size=32)

    torch.manual_seed(0)
    tokenizer = WordTokenizer(WORDS)
    loader = torch.utils.data.DataLoader(Reviews(2048, tokenizer, 256), batch_size=args.batch_size,
                                         shuffle=True, drop_last=True)
    padded = Classifier(tokenizer.vocab_size)
    trimmed = copy.deepcopy(padded)
    optimizers = [torch.optim.AdamW(m.parameters(), lr=3e-4) for m in (padded, trimmed)]
    criterion = torch.nn.CrossEntropyLoss()

    def loss(model, batch):
        return criterion(model(batch["input_ids"], batch["attention_mask"]), batch["labels"])

    pairs = interleaved(timed_step(optimizers[0], lambda batch: loss(padded, batch)),
                        timed_step(optimizers[1], lambda batch: loss(trimmed, _trimmed(batch))),
                        lambda: loader, args.warmup, args.steps)
    report(pairs, args.batch_size, "padded to 256", "cut to each batch's longest")


if __name__ == "__main__":
    main()
