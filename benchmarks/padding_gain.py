"""Measure what padding each batch to its own longest text gains on sample_scripts/fixed_length_padding.py.

    python benchmarks/padding_gain.py [--steps 60] [--batch-size 32]

Two copies of the sample's model train side by side in one process, step by step in turn on the same
batches: one on the batches as the sample makes them (every text padded to 256 tokens), one on each batch
cut to its longest row. Prints each one's mean step and the ratio, with a bootstrap interval over the
pairs: the measured counterpart of the estimate `fixed-length-padding` gives on the sample's run.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "sample_scripts"))

from fixed_length_padding import WORDS, Classifier, Reviews, WordTokenizer  # noqa: E402
from side_by_side import interleaved, summary  # noqa: E402


def _step(model, optimizer, criterion, batch) -> float:
    start = time.perf_counter()
    loss = criterion(model(batch["input_ids"], batch["attention_mask"]), batch["labels"])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return time.perf_counter() - start


def _trimmed(batch: dict) -> dict:
    longest = int(batch["attention_mask"].sum(dim=1).max())
    return {**batch, "input_ids": batch["input_ids"][:, :longest],
            "attention_mask": batch["attention_mask"][:, :longest]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()

    torch.manual_seed(0)
    tokenizer = WordTokenizer(WORDS)
    loader = torch.utils.data.DataLoader(Reviews(2048, tokenizer, 256), batch_size=args.batch_size,
                                         shuffle=True, drop_last=True)
    padded = Classifier(tokenizer.vocab_size)
    trimmed = copy.deepcopy(padded)
    optimizers = [torch.optim.AdamW(m.parameters(), lr=3e-4) for m in (padded, trimmed)]
    criterion = torch.nn.CrossEntropyLoss()
    pairs = interleaved(lambda batch: _step(padded, optimizers[0], criterion, batch),
                        lambda batch: _step(trimmed, optimizers[1], criterion, _trimmed(batch)),
                        lambda: loader, args.warmup, args.steps)
    full, cut, speedup, low, high = summary(pairs)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {len(pairs)} step pairs, "
          f"batch {args.batch_size}")
    print(f"padded to 256: {full * 1e3:.1f} ms a step; cut to each batch's longest: {cut * 1e3:.1f} ms a step")
    print(f"speed-up {speedup:.2f}x (95% interval {low:.2f}-{high:.2f})")


if __name__ == "__main__":
    main()
