"""Two ways of training the same model, measured side by side in one process (benchmarks/*_gain.py).

Each step of the loop times one way and then the other on the same batch, alternating which goes first, so
that the machine's noise falls on both alike; the ratio's interval is a bootstrap over the pairs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any, Callable, Iterable, Iterator

import torch

__all__ = ["arguments", "timed_step", "interleaved", "summary", "report"]


def arguments(steps: int, batch_size: int) -> argparse.Namespace:
    """The command line every such benchmark takes: --steps (pairs measured), --warmup (pairs left out first) and
    --batch-size, with the caller's defaults."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=batch_size)
    return parser.parse_args()


def timed_step(optimizer: torch.optim.Optimizer, loss: Callable[[Any], torch.Tensor]) -> Callable[[Any], float]:
    """A training step on a batch (``loss(batch)``, backward, the optimizer's update) that returns its seconds."""
    def step(batch: Any) -> float:
        start = time.perf_counter()
        value = loss(batch)
        optimizer.zero_grad()
        value.backward()
        optimizer.step()
        return time.perf_counter() - start

    return step


def _forever(batches: Callable[[], Iterable]) -> Iterator:
    while True:
        yield from batches()


def interleaved(first: Callable, second: Callable, batches: Callable[[], Iterable], warmup: int,
                steps: int) -> list[tuple[float, float]]:
    """(first's seconds, second's seconds) for each of ``steps`` batches after ``warmup``; each callable takes a
    batch and returns the seconds its step took."""
    pairs = []
    source = _forever(batches)
    for index in range(warmup + steps):
        batch = next(source)
        if index % 2:  # neither way always runs first
            b, a = second(batch), first(batch)
        else:
            a, b = first(batch), second(batch)
        if index >= warmup:
            pairs.append((a, b))
    return pairs


def summary(pairs: list[tuple[float, float]]) -> tuple[float, float, float, float, float]:
    """Mean seconds of each way, the ratio of the first's to the second's and its 95% bootstrap interval."""
    a = statistics.fmean(p[0] for p in pairs)
    b = statistics.fmean(p[1] for p in pairs)
    rng = random.Random(0)
    ratios = []
    for _ in range(2000):
        draw = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        ratios.append(sum(p[0] for p in draw) / sum(p[1] for p in draw))
    ratios.sort()
    return a, b, a / b, ratios[50], ratios[1949]


def report(pairs: list[tuple[float, float]], batch_size: int, first: str, second: str) -> None:
    """Print the setting, each way's mean step and the speed-up of the second over the first."""
    slow, fast, speedup, low, high = summary(pairs)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {len(pairs)} step pairs, batch {batch_size}")
    print(f"{first}: {slow * 1e3:.1f} ms a step; {second}: {fast * 1e3:.1f} ms a step")
    print(f"speed-up {speedup:.2f}x (95% interval {low:.2f}-{high:.2f})")
