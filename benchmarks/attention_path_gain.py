"""Measure what the fused attention kernel gains on sample_scripts/attention_dropout_math_path.py.

    python benchmarks/attention_path_gain.py [--steps 40] [--batch-size 16]

Two copies of the sample's model train side by side in one process, step by step in turn on the same
batches: one as the sample has it (dropout_p=0.1 inside scaled_dot_product_attention, its math path on a CPU),
one with dropout_p=0.0 there (the fused flash kernel). Prints each one's mean step and the ratio, with a
bootstrap interval over the pairs: the measured counterpart of the floor `attention-math-path` gives on the
sample's run.
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

from attention_dropout_math_path import TinyGPT, make_text  # noqa: E402
from side_by_side import arguments, interleaved, report, timed_step  # noqa: E402


def _loss(model, batch):
    x, y = batch
    logits = model(x)
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), y.reshape(-1))


def main() -> None:
    args = arguments(steps=40, batch_size=16)

    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(make_text(1024, 256), batch_size=args.batch_size, shuffle=True,
                                         drop_last=True)
    math_path = TinyGPT()
    fused = copy.deepcopy(math_path)
    for block in fused.blocks:
        block.dropout = 0.0  # the fix: no dropout inside the attention call
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in (math_path, fused)]
    pairs = interleaved(timed_step(optimizers[0], lambda batch: _loss(math_path, batch)),
                        timed_step(optimizers[1], lambda batch: _loss(fused, batch)), lambda: loader, args.warmup,
                        args.steps)
    report(pairs, args.batch_size, "attention dropout (math path)", "without it (fused)")


if __name__ == "__main__":
    main()
