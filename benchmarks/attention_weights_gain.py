"""Measure what need_weights=False gains on sample_scripts/attention_weights_returned.py.

    python benchmarks/attention_weights_gain.py [--steps 40] [--batch-size 16]

Two copies of the sample's model train side by side in one process, step by step in turn on the same
batches: one as the sample has it (nn.MultiheadAttention called with need_weights left True), one calling it
with need_weights=False. Prints each one's mean step and the ratio with a bootstrap interval over the pairs:
what `attention-weights-returned` (which shows the calls' time, not a gain) points at.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "sample_scripts"))

from attention_weights_returned import TinyViT, make_images  # noqa: E402
from side_by_side import arguments, interleaved, report, timed_step  # noqa: E402


def _without_weights(block, x):
    h = block.norm1(x)
    h, _ = block.attention(h, h, h, need_weights=False)
    x = x + h
    return x + block.mlp(block.norm2(x))


def _loss(model, batch):
    images, labels = batch
    return F.cross_entropy(model(images), labels)


def main() -> None:
    args = arguments(steps=40, batch_size=16)

    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(make_images(1024), batch_size=args.batch_size, shuffle=True, drop_last=True)
    weights = TinyViT()
    fused = copy.deepcopy(weights)
    for block in fused.blocks:
        block.forward = lambda x, block=block: _without_weights(block, x)  # the fix, on this copy only
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in (weights, fused)]
    pairs = interleaved(timed_step(optimizers[0], lambda batch: _loss(weights, batch)),
                        timed_step(optimizers[1], lambda batch: _loss(fused, batch)), lambda: loader, args.warmup,
                        args.steps)
    report(pairs, args.batch_size, "need_weights=True", "need_weights=False")


if __name__ == "__main__":
    main()
