"""Numbers for people: one place that decides units and precision.

Every formatter takes ``None`` (a measurement that could not be made) and
returns an em dash, so templates never test for missing values themselves.
Sizes are binary (KiB, MiB, GiB) and say so: GPU and RAM sizes are powers of two.
"""

from __future__ import annotations

import math
from typing import Optional

__all__ = ["MISSING", "seconds", "nbytes", "rate", "share", "percent", "ratio", "count", "number"]

MISSING = "—"


def _bad(x: Optional[float]) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def _sig(x: float, digits: int = 3) -> str:
    """``x`` with about ``digits`` significant figures, without an exponent."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def seconds(x: Optional[float]) -> str:
    """A duration: µs, ms, s, then minutes and hours."""
    if _bad(x):
        return MISSING
    x = float(x)  # type: ignore[arg-type]
    a = abs(x)
    if a == 0:
        return "0 s"
    if a < 1e-3:
        return f"{_sig(x * 1e6)} µs"
    if a < 1:
        return f"{_sig(x * 1e3)} ms"
    if a < 60:
        return f"{_sig(x)} s"
    if a < 3600:
        m, s = divmod(int(round(a)), 60)
        return f"{'-' if x < 0 else ''}{m} min {s:02d} s"
    h, rest = divmod(int(round(a)), 3600)
    return f"{'-' if x < 0 else ''}{h} h {rest // 60:02d} min"


_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def nbytes(n: Optional[float]) -> str:
    """A size in binary units: 1.5 GiB."""
    if _bad(n):
        return MISSING
    v = float(n)  # type: ignore[arg-type]
    unit = 0
    while abs(v) >= 1024 and unit < len(_BYTE_UNITS) - 1:
        v /= 1024
        unit += 1
    if unit == 0:
        return f"{int(v)} B"
    return f"{_sig(v)} {_BYTE_UNITS[unit]}"


def rate(bps: Optional[float]) -> str:
    """Bytes per second."""
    return MISSING if _bad(bps) else f"{nbytes(bps)}/s"


def share(x: Optional[float], digits: int = 0) -> str:
    """A fraction in [0, 1] as a percentage."""
    if _bad(x):
        return MISSING
    return f"{float(x) * 100:.{digits}f}%"  # type: ignore[arg-type]


def percent(x: Optional[float], digits: int = 0) -> str:
    """A value already in percent."""
    if _bad(x):
        return MISSING
    return f"{float(x):.{digits}f}%"  # type: ignore[arg-type]


def ratio(x: Optional[float]) -> str:
    """A speed-up or a multiple: 2.5×."""
    if _bad(x):
        return MISSING
    return f"{_sig(float(x), 2) if float(x) < 10 else f'{float(x):.0f}'}×"  # type: ignore[arg-type]


def count(n: Optional[float]) -> str:
    """An integer with thousands separators."""
    if _bad(n):
        return MISSING
    return f"{int(round(float(n))):,}"  # type: ignore[arg-type]


def number(x: Optional[float], digits: int = 3) -> str:
    """Any other number, with about ``digits`` significant figures."""
    if _bad(x):
        return MISSING
    x = float(x)  # type: ignore[arg-type]
    if abs(x) >= 10 ** digits:
        return count(x)
    return _sig(x, digits)
