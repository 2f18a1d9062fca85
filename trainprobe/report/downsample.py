"""Thin long time series so that an hour of 10 Hz samples still draws fast.

A chart is about 1,000 pixels wide, so more than a few points per pixel only
adds bytes. :func:`downsample` keeps at most ``MAX_POINTS`` points per series
by splitting the time axis into ``MAX_POINTS // 2`` buckets and keeping each
bucket's minimum and maximum, in time order: a one-sample spike or dip (a
stall of the GPU, a burst of disk reads) survives, which plain averaging
would smooth away. Missing samples (``None``) are skipped; a bucket with no
value at all yields one ``None`` so the chart shows a gap instead of a line
drawn across missing data.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

__all__ = ["MAX_POINTS", "downsample", "thin_indices"]

# Points per series in a chart (the documented cap). 800 points on a ~1,000 px
# wide chart keeps the shape at screen resolution; 10 series of 800 points
# are ~100 KB of SVG.
MAX_POINTS = 800

Value = Optional[float]


def _valid(v: Value) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def downsample(
    t: Sequence[float], y: Sequence[Value], max_points: int = MAX_POINTS
) -> tuple[list[float], list[Value]]:
    """Return at most ``max_points`` (t, y) pairs keeping each bucket's min and max.

    ``t`` must be sorted; ``t`` and ``y`` are cut to the shorter of the two.
    Series already short enough come back unchanged (as lists).
    """
    n = min(len(t), len(y))
    if max_points < 2:
        raise ValueError("max_points must be at least 2")
    if n <= max_points:
        return list(t[:n]), [v if _valid(v) else None for v in y[:n]]
    buckets = max_points // 2
    t0, t1 = float(t[0]), float(t[n - 1])
    span = (t1 - t0) or 1.0
    out_t: list[float] = []
    out_y: list[Value] = []
    start = 0
    for b in range(buckets):
        edge = t0 + span * (b + 1) / buckets
        end = start
        while end < n and (t[end] <= edge or b == buckets - 1):
            end += 1
        if end == start:
            continue  # no sample fell in this bucket (a pause in sampling)
        _emit_bucket(t, y, start, end, out_t, out_y)
        start = end
    return out_t, out_y


def _emit_bucket(t, y, start, end, out_t, out_y) -> None:
    lo = hi = None
    for i in range(start, end):
        v = y[i]
        if not _valid(v):
            continue
        if lo is None or v < y[lo]:
            lo = i
        if hi is None or v > y[hi]:
            hi = i
    if lo is None:
        out_t.append(float(t[start]))
        out_y.append(None)
        return
    for i in sorted({lo, hi}):
        out_t.append(float(t[i]))
        out_y.append(float(y[i]))


def thin_indices(n: int, max_points: int) -> list[int]:
    """Evenly spaced indices (first and last kept) to cut ``n`` rows to ``max_points``.

    Used where several columns must stay aligned (the raw record's samples),
    so one index set is shared by every column.
    """
    if n <= max_points:
        return list(range(n))
    step = (n - 1) / (max_points - 1)
    return sorted({int(round(i * step)) for i in range(max_points)})
