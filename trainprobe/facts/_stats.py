"""Small statistics helpers shared by the fact families (pure, None-tolerant)."""

from __future__ import annotations

import math
from typing import Iterable, Optional

__all__ = ["clean", "mean", "median", "percentile", "ratio"]


def clean(values: Iterable[Optional[float]]) -> list[float]:
    """The finite numbers of ``values`` (None and NaN dropped)."""
    # A diagnosis calls this thousands of times (the verdict's bootstrap): comprehensions, and a second
    # pass only when something is not finite.
    out = [float(v) for v in values if v is not None and type(v) is not bool]  # bool has no subclasses
    if all(map(math.isfinite, out)):
        return out
    return [f for f in out if math.isfinite(f)]


def mean(values: Iterable[Optional[float]]) -> Optional[float]:
    vals = clean(values)
    return sum(vals) / len(vals) if vals else None


def percentile(values: Iterable[Optional[float]], q: float) -> Optional[float]:
    """Linear-interpolated percentile, ``q`` in [0, 100]; None for no data."""
    vals = sorted(clean(values))
    if not vals:
        return None
    pos = (len(vals) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(vals) - 1)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def median(values: Iterable[Optional[float]]) -> Optional[float]:
    return percentile(values, 50.0)


def ratio(num: Optional[float], den: Optional[float]) -> Optional[float]:
    """num / den, or None when either is missing or den is not positive."""
    if num is None or den is None or den <= 0:
        return None
    return num / den
