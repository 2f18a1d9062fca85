"""How trainprobe shows things to people: numbers, colour, and the Jinja environment.

One module, so that the HTML report, the terminal summary, rule messages and
``trainprobe check`` agree on every detail:

* **Numbers.** Every formatter takes ``None`` (a measurement that could not be
  made), NaN or a Jinja ``Undefined`` (a rule's missing fact) and returns
  :data:`UNKNOWN`; nobody tests for missing values themselves. Durations pick
  µs/ms/s/min/h, sizes are binary (KiB, MiB, GiB: GPU and RAM sizes are powers
  of two) and say so, and about three significant figures are shown.
* **Colour.** ANSI only, and only when :func:`use_color` says so: never when
  ``NO_COLOR`` is set to anything non-empty (https://no-color.org), on
  ``TERM=dumb``, or on a stream that is not a terminal (a pipe, a file, a
  notebook's cell output).
* **Templates.** :func:`jinja_environment` is the one environment for the
  report and the check pages: autoescaping on for every template whatever its
  extension, so a string from the user's run is always text, never markup;
  undefined names fail loudly.
"""

from __future__ import annotations

import math
import re
import os
from functools import lru_cache
from typing import IO, Any, Callable, Optional

__all__ = [
    "UNKNOWN", "is_unknown", "seconds", "nbytes", "rate", "share", "percent", "ratio", "sentence", "count",
    "number", "yes_no", "in_unit", "flops", "flop_rate", "by_unit", "use_color", "painter", "TEMPLATE_FILTERS",
    "jinja_environment",
]

UNKNOWN = "unknown"


def is_unknown(x: Any) -> bool:
    """True for a value that could not be measured: None, NaN, infinity or a Jinja Undefined."""
    if x is None:
        return True
    if isinstance(x, float):
        return not math.isfinite(x)
    try:
        from jinja2.runtime import Undefined
    except ImportError:  # pragma: no cover - jinja2 is a dependency
        return False
    return isinstance(x, Undefined)


def _sig(x: float, digits: int = 3) -> str:
    """``x`` with about ``digits`` significant figures, without an exponent."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def seconds(x: Any) -> str:
    """A duration: µs, ms, s, then minutes and hours."""
    if is_unknown(x):
        return UNKNOWN
    x = float(x)
    a = abs(x)
    if a == 0:
        return "0 s"
    if a < 1e-3:
        return f"{_sig(x * 1e6)} µs"
    if a < 1:
        return f"{_sig(x * 1e3)} ms"
    if a < 60:
        return f"{_sig(x)} s"
    sign = "-" if x < 0 else ""
    if a < 3600:
        m, s = divmod(int(round(a)), 60)
        return f"{sign}{m} min {s:02d} s"
    h, rest = divmod(int(round(a)), 3600)
    return f"{sign}{h} h {rest // 60:02d} min"


_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def nbytes(n: Any) -> str:
    """A size in binary units: 1.50 GiB."""
    if is_unknown(n):
        return UNKNOWN
    v = float(n)
    unit = 0
    while abs(v) >= 1024 and unit < len(_BYTE_UNITS) - 1:
        v /= 1024
        unit += 1
    if unit == 0:
        return f"{int(v)} B"
    return f"{_sig(v)} {_BYTE_UNITS[unit]}"


_DECIMAL_PREFIXES = ("", "k", "M", "G", "T", "P", "E")


def flops(x: Any, per_second: bool = False) -> str:
    """A FLOP count or rate in decimal units, as datasheets quote them: 3.51 GFLOP, 199 GFLOP/s."""
    if is_unknown(x):
        return UNKNOWN
    v, prefix = float(x), 0
    while abs(v) >= 1000 and prefix < len(_DECIMAL_PREFIXES) - 1:
        v /= 1000.0
        prefix += 1
    return f"{_sig(v)} {_DECIMAL_PREFIXES[prefix]}FLOP{'/s' if per_second else ''}"


def flop_rate(x: Any) -> str:
    return flops(x, per_second=True)


def rate(bps: Any) -> str:
    """Bytes per second."""
    return UNKNOWN if is_unknown(bps) else f"{nbytes(bps)}/s"


def share(x: Any, digits: int = 0) -> str:
    """A fraction in [0, 1] as a percentage."""
    if is_unknown(x):
        return UNKNOWN
    return f"{float(x) * 100:.{digits}f}%"


def percent(x: Any, digits: int = 0) -> str:
    """A value already in percent."""
    if is_unknown(x):
        return UNKNOWN
    return f"{float(x):.{digits}f}%"


def sentence(text: str) -> str:
    """``text`` as a sentence: stripped, its first letter a capital, one full stop at the end."""
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "." if text else text


def ratio(x: Any) -> str:
    """A speed-up or a multiple: 2.5×."""
    if is_unknown(x):
        return UNKNOWN
    v = float(x)
    return f"{_sig(v, 2) if abs(v) < 10 else f'{v:.0f}'}×"


def count(n: Any) -> str:
    """An integer with thousands separators."""
    if is_unknown(n):
        return UNKNOWN
    return f"{int(round(float(n))):,}"


def number(x: Any, digits: int = 3) -> str:
    """Any other number, with about ``digits`` significant figures; integers stay whole."""
    if is_unknown(x):
        return UNKNOWN
    if isinstance(x, bool):
        return yes_no(x)
    if isinstance(x, int):
        return f"{x:,}" if abs(x) >= 10 ** digits else str(x)
    v = float(x)
    # A whole-valued mean (92.0 ops in every step) is a count, not a measure
    # with a significant trailing zero.
    if abs(v) >= 10 ** digits or (v.is_integer() and abs(v) >= 1):
        return count(v)
    return _sig(v, digits)


def yes_no(v: Any) -> str:
    return UNKNOWN if is_unknown(v) else ("yes" if v else "no")


def in_unit(x: Any, unit: str) -> str:
    """A measured rate in its own unit, as the check lists it: "1,234 images/s", "3.20 GB/s"."""
    if is_unknown(x):
        return UNKNOWN
    v = float(x)
    if abs(v) >= 100:
        return f"{v:,.0f} {unit}"
    if abs(v) >= 10:
        return f"{v:.1f} {unit}"
    return f"{v:.2f} {unit}"


_BY_UNIT: dict[str, Callable[[Any], str]] = {
    "share": share,
    "s": seconds,
    "bytes": nbytes,
    "B/s": rate,
    "FLOP": flops,
    "FLOP/s": flop_rate,
    "bool": yes_no,
    "percent": percent,
    "W": lambda v: f"{float(v):.0f} W",
    "C": lambda v: f"{float(v):.0f} °C",
}


def by_unit(value: Any, unit: str) -> str:
    """A fact's value as people read it, chosen by the fact's unit."""
    if is_unknown(value):
        return UNKNOWN
    if isinstance(value, str):
        return value or "none"
    if isinstance(value, bool) and unit != "bool":
        return yes_no(value)
    return _BY_UNIT.get(unit, number)(value)


# -- colour -------------------------------------------------------------------------------
_CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def use_color(stream: Optional[IO[str]]) -> bool:
    """Whether to colour text written to ``stream``."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM", "") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed stream
        return False


def painter(color: bool) -> Callable[..., str]:
    """``paint(text, *styles)``: ANSI styles (bold, dim, red, green, yellow, cyan) when ``color``."""
    def paint(text: str, *styles: str) -> str:
        if not color or not styles:
            return text
        return f"\x1b[{';'.join(_CODES[s] for s in styles)}m{text}\x1b[0m"
    return paint


# -- templates ----------------------------------------------------------------------------
def _pct_width(x: Any) -> str:
    """A share as a CSS width, clamped to [0, 100%]."""
    v = 0.0 if is_unknown(x) else max(0.0, min(1.0, float(x)))
    return f"{v * 100:.2f}%"


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def code_spans(text: Any) -> Any:
    """A finding's text for HTML, escaped, with its `backquoted` parts (a configuration file's line to write,
    ``precision: bf16-mixed``) as <code>."""
    from markupsafe import Markup, escape

    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


TEMPLATE_FILTERS: dict[str, Callable[..., Any]] = {
    "pct_width": _pct_width, "seconds": seconds, "nbytes": nbytes, "share": share,
    "ratio": ratio, "count": count, "number": number, "yes_no": yes_no, "flops": flops, "flop_rate": flop_rate,
    "code_spans": code_spans,
}


def _bytecode_cache(jinja2):
    """Jinja's own cache of the pages' compiled templates, in trainprobe's cache folder: compiling the
    report's templates took a fifth of a second of every report. Jinja keys each by the template's
    name and source, and drops one that another Python compiled; None when caching is off or the
    folder cannot be made."""
    from .resources import cache_folder

    folder = cache_folder()
    if folder is None:
        return None
    try:
        (folder / "templates").mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder / "templates"))


@lru_cache(maxsize=4)
def jinja_environment(folder: Optional[str] = None):  # -> jinja2.Environment
    """The Jinja environment of every HTML page (report, check, class summary)."""
    import jinja2

    if folder is None:
        from .resources import templates_dir

        folder = str(templates_dir())
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        bytecode_cache=_bytecode_cache(jinja2),
        autoescape=True,  # every template, whatever its extension
        undefined=jinja2.StrictUndefined,  # a typo in a template fails the tests, not silently
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(TEMPLATE_FILTERS)
    env.globals["UNKNOWN"] = UNKNOWN
    return env
