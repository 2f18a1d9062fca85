"""Measure what the fused attention kernel gains on sample_scripts/attention_dropout_math_path.py.

    python benchmarks/attention_path_gain.py [--steps 40] [--batch-size 16]

Two copies of the sample's model train side by side in one process, step by step in turn on the same
batches: one as the sample has it (dropout_p=0.1 inside scaled_dot_product_attention, its math path on a CPU),
one with dropout_p=0.0 there (the fused flash kernel). Prints each one's mean step and the ratio, with a
bootstrap interval over the pairs: the measured counterpart of the floor `attention-math-path` gives on the
sample's run.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "sample_scripts"))

from attention_dropout_math_path import TinyGPT, make_text  # noqa: E402
from side_by_side import interleaved, summary  # noqa: E402


def _step(model, optimizer, x, y) -> float:
    start = time.perf_counter()
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(make_text(1024, 256), batch_size=args.batch_size, shuffle=True,
                                         drop_last=True)
    math_path = TinyGPT()
    fused = copy.deepcopy(math_path)
    for block in fused.blocks:
        block.dropout = 0.0  # the fix: no dropout inside the attention call
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in (math_path, fused)]
    pairs = interleaved(lambda batch: _step(math_path, optimizers[0], *batch),
                        lambda batch: _step(fused, optimizers[1], *batch), lambda: loader, args.warmup, args.steps)
    slow, fast, speedup, low, high = summary(pairs)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {len(pairs)} step pairs, "
          f"batch {args.batch_size}")
    print(f"attention dropout (math path): {slow * 1e3:.1f} ms a step; without it (fused): {fast * 1e3:.1f} ms a step")
    print(f"speed-up {speedup:.2f}x (95% interval {low:.2f}-{high:.2f})")


if __name__ == "__main__":
    main()
