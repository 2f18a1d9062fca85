"""Interval arithmetic on the device's timeline: unions, gaps, overlaps (microseconds).

Kept apart from the summarizer because every GPU figure (busy time, idle gaps, exposed
communication, what the host did while the GPU waited) is one of these three operations.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterable

__all__ = ["Timeline", "merge", "union_length"]

Interval = tuple[float, float]


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted, non-overlapping intervals covering exactly what the input covers."""
    out: list[list[float]] = []
    for start, stop in sorted(intervals):
        if stop <= start:
            continue
        if out and start <= out[-1][1]:
            if stop > out[-1][1]:
                out[-1][1] = stop
        else:
            out.append([start, stop])
    return [(a, b) for a, b in out]


def union_length(intervals: Iterable[Interval]) -> float:
    return sum(b - a for a, b in merge(intervals))


class Timeline:
    """Merged intervals with prefix sums: how much of any window they cover, in O(log n)."""

    def __init__(self, intervals: Iterable[Interval], merged: bool = False):
        self.spans: list[Interval] = list(intervals) if merged else merge(intervals)
        self.starts = [a for a, _ in self.spans]
        self.stops = [b for _, b in self.spans]
        self.cumulative = [0.0]
        for a, b in self.spans:
            self.cumulative.append(self.cumulative[-1] + (b - a))

    def __len__(self) -> int:
        return len(self.spans)

    def covered(self, lo: float, hi: float) -> float:
        """Length of [lo, hi] the intervals cover."""
        if hi <= lo or not self.spans:
            return 0.0
        first = bisect_right(self.stops, lo)  # first span ending after lo
        last = bisect_left(self.starts, hi)  # spans starting before hi
        if first >= last:
            return 0.0
        total = self.cumulative[last] - self.cumulative[first]
        a, _ = self.spans[first]
        if a < lo:
            total -= lo - a
        _, b = self.spans[last - 1]
        if b > hi:
            total -= b - hi
        return max(0.0, total)

    def gaps(self, lo: float, hi: float) -> list[Interval]:
        """The parts of [lo, hi] no interval covers."""
        out: list[Interval] = []
        cursor = lo
        i = bisect_right(self.stops, lo)
        while i < len(self.spans) and self.starts[i] < hi:
            a, b = self.spans[i]
            if a > cursor:
                out.append((cursor, min(a, hi)))
            cursor = max(cursor, b)
            i += 1
        if cursor < hi:
            out.append((cursor, hi))
        return out

    def minus(self, other: "Timeline") -> "Timeline":
        """What this timeline covers and ``other`` does not."""
        parts: list[Interval] = []
        for a, b in self.spans:
            parts.extend(other.gaps(a, b))
        return Timeline(parts, merged=True)
