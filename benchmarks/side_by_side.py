"""Two ways of training the same model, measured side by side in one process (benchmarks/*_gain.py).

Each step of the loop times one way and then the other on the same batch, alternating which goes first, so
that the machine's noise falls on both alike; the ratio's interval is a bootstrap over the pairs.
"""

from __future__ import annotations

import random
import statistics
from typing import Callable, Iterable, Iterator

__all__ = ["interleaved", "summary"]


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
