"""Formatting numbers for people: the filters rule templates use, and evidence values by unit."""

from __future__ import annotations

from typing import Any, Callable

from jinja2.runtime import Undefined

__all__ = ["FILTERS", "format_value", "pct", "secs", "human_bytes", "times", "num"]

_NA = "n/a"


def _missing(value: Any) -> bool:
    return value is None or isinstance(value, Undefined)


def pct(value: Any, digits: int = 0) -> str:
    """0.643 -> '64%'."""
    if _missing(value):
        return _NA
    return f"{100.0 * float(value):.{digits}f}%"


def secs(value: Any) -> str:
    """0.0123 -> '12.3 ms'; 2.5 -> '2.50 s'."""
    if _missing(value):
        return _NA
    v = float(value)
    if abs(v) >= 1.0:
        return f"{v:.2f} s"
    if abs(v) >= 1e-3:
        return f"{v * 1e3:.3g} ms"
    return f"{v * 1e6:.3g} µs"


def human_bytes(value: Any) -> str:
    """1536 -> '1.5 KiB'."""
    if _missing(value):
        return _NA
    v = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(v) < 1024 or unit == "TiB":
            return f"{v:.0f} {unit}" if unit == "B" else f"{v:.1f} {unit}"
        v /= 1024
    return _NA


def times(value: Any) -> str:
    """2.46 -> '2.5×'."""
    if _missing(value):
        return _NA
    return f"{float(value):.2g}×" if float(value) < 10 else f"{float(value):.0f}×"


def num(value: Any, digits: int = 3) -> str:
    """A number with a few significant digits; integers stay whole."""
    if _missing(value):
        return _NA
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.{digits}g}"


def yesno(value: Any) -> str:
    if _missing(value):
        return _NA
    return "yes" if value else "no"


FILTERS: dict[str, Callable] = {
    "pct": pct,
    "secs": secs,
    "bytes": human_bytes,
    "rate": lambda v: _NA if _missing(v) else human_bytes(v) + "/s",
    "times": times,
    "num": num,
    "yesno": yesno,
}

_BY_UNIT: dict[str, Callable] = {
    "share": pct,
    "s": secs,
    "bytes": human_bytes,
    "B/s": FILTERS["rate"],
    "bool": yesno,
    "percent": lambda v: _NA if _missing(v) else f"{float(v):.0f}%",
    "x": num,
    "W": lambda v: _NA if _missing(v) else f"{float(v):.0f} W",
    "C": lambda v: _NA if _missing(v) else f"{float(v):.0f} °C",
}


def format_value(value: Any, unit: str) -> str:
    """A fact's value as people read it, by its unit."""
    if _missing(value):
        return _NA
    if isinstance(value, str):
        return value or "none"
    if isinstance(value, bool) and unit != "bool":
        return yesno(value)
    return _BY_UNIT.get(unit, num)(value)
