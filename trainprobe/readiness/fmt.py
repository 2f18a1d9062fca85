"""Small formatting helpers shared by the items, the grader and the renderers."""

from __future__ import annotations

from typing import Optional

__all__ = ["GIB", "gib", "fmt_bytes", "fmt_rate", "COULD_NOT_COLLECT"]

COULD_NOT_COLLECT = "Could not collect"
GIB = 1024 ** 3


def gib(n: Optional[float]) -> Optional[float]:
    return None if n is None else n / GIB


def fmt_bytes(n: Optional[float]) -> str:
    if n is None:
        return COULD_NOT_COLLECT
    for unit, size in (("TiB", 1024 ** 4), ("GiB", GIB), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if abs(n) >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{int(n)} B"


def fmt_rate(x: Optional[float], unit: str) -> str:
    if x is None:
        return COULD_NOT_COLLECT
    if x >= 100:
        return f"{x:,.0f} {unit}"
    if x >= 10:
        return f"{x:.1f} {unit}"
    return f"{x:.2f} {unit}"
