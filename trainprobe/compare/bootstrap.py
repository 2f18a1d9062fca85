"""How sure a speed-up is: a bootstrap over the steady steps of two runs.

The statistic is the ratio of the two runs' **mean** time per unit of work
(seconds per step, or per sample when the runs' batch sizes differ): all
steady time over all steady steps (or samples), the step-time base that every
other trainprobe figure uses (``facts.window.mean_step_time``). The mean, not
the median, because it is what an epoch costs: the ratio of means is the ratio
of throughputs, and it moves when a change makes one step in four stall for
data, where the median step would not move at all. What the median buys (a
rare slow step does not move it) the bootstrap gives here in another way: one
outlier makes the resampled means spread, the interval widens, and the result
reads as inconclusive instead of as a false speed-up or slow-down.

Each run's steady steps are drawn with replacement, independently,
``RESAMPLES`` times with a fixed seed (the same runs give the same interval
every time), and the 2.5th and 97.5th percentiles of the resampled ratios are
the 95% interval. The steps are taken as exchangeable: slow drift within a
window (thermal throttling) is not modelled.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional, Sequence

__all__ = ["RESAMPLES", "SEED", "CONFIDENCE", "Interval", "speedup_interval"]

RESAMPLES = 2000
SEED = 20261124
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """Baseline over candidate time per unit: above 1, the candidate is faster."""

    point: float  # on the measured steps as they are
    low: float  # 2.5th percentile of the resampled ratios
    high: float  # 97.5th percentile


def _time_per_unit(durations: Sequence[float], units: Optional[Sequence[float]]) -> float:
    return sum(durations) / (sum(units) if units is not None else len(durations))


def _resampled(durations: Sequence[float], units: Optional[Sequence[float]], rng: random.Random,
               resamples: int) -> list[float]:
    """Time per unit of ``resamples`` draws of the steps, with replacement."""
    n = len(durations)
    if units is None:  # time per step: draw the durations themselves (the quick path)
        return [sum(rng.choices(durations, k=n)) / n for _ in range(resamples)]
    pairs = list(zip(durations, units))
    out = []
    for _ in range(resamples):
        drawn = rng.choices(pairs, k=n)
        out.append(sum(d for d, _ in drawn) / sum(u for _, u in drawn))
    return out


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of already sorted values, ``q`` in [0, 1]."""
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def speedup_interval(base: Sequence[float], candidate: Sequence[float],
                     base_units: Optional[Sequence[float]] = None,
                     candidate_units: Optional[Sequence[float]] = None,
                     resamples: int = RESAMPLES, seed: int = SEED) -> Interval:
    """The speed-up of ``candidate`` over ``base`` (their steady step durations, in seconds) with its 95%
    interval. ``*_units`` are the samples of each step, to compare time per sample; without them each
    step is one unit (time per step)."""
    if not base or not candidate:
        raise ValueError("both runs need steady steps")
    rng = random.Random(seed)
    base_times = _resampled(base, base_units, rng, resamples)
    candidate_times = _resampled(candidate, candidate_units, rng, resamples)
    ratios = sorted(b / c for b, c in zip(base_times, candidate_times))
    tail = (1.0 - CONFIDENCE) / 2
    point = _time_per_unit(base, base_units) / _time_per_unit(candidate, candidate_units)
    return Interval(point=point, low=_percentile(ratios, tail), high=_percentile(ratios, 1.0 - tail))
