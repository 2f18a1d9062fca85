"""Measure what need_weights=False gains on sample_scripts/attention_weights_returned.py.

    python benchmarks/attention_weights_gain.py [--steps 40] [--batch-size 16]

Two copies of the sample's model train side by side in one process, step by step in turn on the same
batches: one as the sample has it (nn.MultiheadAttention called with need_weights left True), one calling it
with need_weights=False. Prints each one's mean step and the ratio with a bootstrap interval over the pairs:
what `attention-weights-returned` (which shows the calls' time, not a gain) points at.
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

from attention_weights_returned import TinyViT, make_images  # noqa: E402
from side_by_side import interleaved, summary  # noqa: E402


def _without_weights(block, x):
    h = block.norm1(x)
    h, _ = block.attention(h, h, h, need_weights=False)
    x = x + h
    return x + block.mlp(block.norm2(x))


def _step(model, optimizer, images, labels) -> float:
    start = time.perf_counter()
    loss = F.cross_entropy(model(images), labels)
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
    loader = torch.utils.data.DataLoader(make_images(1024), batch_size=args.batch_size, shuffle=True, drop_last=True)
    weights = TinyViT()
    fused = copy.deepcopy(weights)
    for block in fused.blocks:
        block.forward = lambda x, block=block: _without_weights(block, x)  # the fix, on this copy only
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in (weights, fused)]
    pairs = interleaved(lambda batch: _step(weights, optimizers[0], *batch),
                        lambda batch: _step(fused, optimizers[1], *batch), lambda: loader, args.warmup, args.steps)
    slow, fast, speedup, low, high = summary(pairs)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {len(pairs)} step pairs, "
          f"batch {args.batch_size}")
    print(f"need_weights=True: {slow * 1e3:.1f} ms a step; need_weights=False: {fast * 1e3:.1f} ms a step")
    print(f"speed-up {speedup:.2f}x (95% interval {low:.2f}-{high:.2f})")


if __name__ == "__main__":
    main()
