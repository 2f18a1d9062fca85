"""Timelines drawn as inline SVG, by hand.

Why hand-drawn SVG rather than a charting library inlined into the page:
* size: a timeline is a few paths and ticks, ~10-30 KB after downsampling,
  where the smallest well-kept libraries (uPlot ~50 KB, Chart.js ~200 KB)
  would weigh more than the data of a typical report;
* no dependency to vendor, audit and update, and no JavaScript needed to see
  a chart: the report reads with scripts blocked (some mail clients, forums);
* no network: nothing to fetch, so the page opens offline;
* print-friendly: vector output that prints and zooms sharply.

Every text that can come from the user's run (process command lines, labels)
is escaped here, because this module builds markup that the template inserts
as-is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from markupsafe import Markup, escape

from .downsample import MAX_POINTS, downsample

__all__ = ["Line", "Band", "Marker", "timeline", "nice_ticks", "PALETTE", "MAX_STEP_TICKS"]

# Colour-blind-safe palette (Okabe-Ito, darkened for contrast on white).
PALETTE = ("#0b5cad", "#d55e00", "#009e73", "#cc79a7", "#b58900", "#56b4e9", "#7f4f24",
           "#6a3d9a", "#e69f00", "#1b9e77")

# More step boundaries than this would paint the chart solid: we then draw
# every k-th one and say so in the chart's caption.
MAX_STEP_TICKS = 240

WIDTH, LEFT, RIGHT, TOP, BOTTOM = 1000, 64, 12, 18, 26


@dataclass(frozen=True)
class Line:
    label: str
    t: Sequence[float]
    y: Sequence[Optional[float]]
    color: str = PALETTE[0]
    dashed: bool = False
    fill: bool = False  # shade the area under the line


@dataclass(frozen=True)
class Band:
    """A shaded stretch of time (a phase of the run)."""

    t0: float
    t1: float
    label: str
    color: str = "#eef2f7"


@dataclass(frozen=True)
class Marker:
    """A vertical line across the plot (an epoch start, the crash)."""

    t: float
    label: str = ""
    color: str = "#5b6673"


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round tick values (1, 2, 2.5, 5 × 10^k) covering [lo, hi]."""
    span = hi - lo
    if span <= 0 or not math.isfinite(span):
        return [lo]
    raw = span / max(1, target)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    ticks, v = [], first
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 10))
        v += step
    return ticks


def _axis_top(peak: float) -> float:
    """The first round tick at or above ``peak``, so the top gridline is labelled."""
    if peak <= 0:
        return 1.0
    ticks = nice_ticks(0, peak, 4)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else peak
    return ticks[-1] if ticks[-1] >= peak else ticks[-1] + step


def _time_ticks(t0: float, t1: float) -> list[tuple[float, str]]:
    """Round ticks in the unit that suits the span: seconds, minutes or hours."""
    span = t1 - t0
    unit, name = (1, "s") if span < 300 else ((60, "min") if span < 4 * 3600 else (3600, "h"))
    return [(v * unit, f"{v:g} {name}") for v in nice_ticks(t0 / unit, t1 / unit, 8)]


def _path(xs: list[float], ys: list[Optional[float]]) -> str:
    parts, pen_down = [], False
    for x, y in zip(xs, ys):
        if y is None:
            pen_down = False
            continue
        parts.append(f"{'L' if pen_down else 'M'}{x:.1f} {y:.1f}")
        pen_down = True
    return "".join(parts)


class _Frame:
    """Maps data to pixels for one chart."""

    def __init__(self, t0: float, t1: float, y0: float, y1: float, height: int) -> None:
        self.t0, self.t1 = t0, (t1 if t1 > t0 else t0 + 1.0)
        self.y0, self.y1 = y0, (y1 if y1 > y0 else y0 + 1.0)
        self.height = height
        self.plot_w = WIDTH - LEFT - RIGHT
        self.plot_h = height - TOP - BOTTOM

    def x(self, t: float) -> float:
        return LEFT + (t - self.t0) / (self.t1 - self.t0) * self.plot_w

    def y(self, v: float) -> float:
        v = min(max(v, self.y0), self.y1)
        return TOP + self.plot_h - (v - self.y0) / (self.y1 - self.y0) * self.plot_h


def timeline(
    lines: Sequence[Line],
    *,
    t_range: tuple[float, float],
    y_format: Callable[[float], str],
    y_max: Optional[float] = None,
    label: str = "",
    bands: Sequence[Band] = (),
    markers: Sequence[Marker] = (),
    step_starts: Sequence[float] = (),
    limits: Sequence[tuple[float, str]] = (),
    height: int = 170,
    max_points: int = MAX_POINTS,
) -> Markup:
    """One timeline: lines over a shared time axis, phases shaded, step boundaries ticked.

    ``limits`` are horizontal dashed lines (a power limit, memory size).
    """
    series = [(ln, *downsample(ln.t, ln.y, max_points)) for ln in lines]
    peak = max([v for _, _, ys in series for v in ys if v is not None]
               + [v for v, _ in limits] + [0.0])
    # 4% headroom keeps a line that sits on a limit (all cores busy) visible under the frame
    top = y_max if y_max is not None else _axis_top(peak * 1.04)
    f = _Frame(t_range[0], t_range[1], 0.0, top, height)
    out = [f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
           f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">']
    out += _bands(f, bands)
    out += _grid(f, y_format)
    out += _step_ticks(f, step_starts)
    for value, _ in limits:  # under the data, so a series running at its limit stays visible
        y = f.y(value)
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="limit"/>')
    for ln, ts, ys in series:
        out += _line(f, ln, ts, ys)
    for value, text in limits:
        out.append(f'<text x="{WIDTH - RIGHT - 4}" y="{f.y(value) + 13:.1f}" text-anchor="end" '
                   f'class="limit-label">{escape(text)}</text>')
    for m in markers:
        x = f.x(m.t)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + f.plot_h}" '
                   f'stroke="{escape(m.color)}" class="marker"><title>{escape(m.label)}</title></line>')
    out.append("</svg>")
    return Markup("".join(out))


def _bands(f: _Frame, bands: Sequence[Band]) -> list[str]:
    out = []
    for b in bands:
        x0, x1 = f.x(max(b.t0, f.t0)), f.x(min(b.t1, f.t1))
        if x1 - x0 < 0.5:
            continue
        out.append(f'<rect x="{x0:.1f}" y="{TOP}" width="{x1 - x0:.1f}" height="{f.plot_h}" '
                   f'fill="{escape(b.color)}"><title>{escape(b.label)}</title></rect>')
        if x1 - x0 > 6 * len(b.label):  # the label sits above the plot, clear of the data
            out.append(f'<text x="{x0 + 2:.1f}" y="{TOP - 5}" class="band-label">{escape(b.label)}</text>')
    return out


def _grid(f: _Frame, y_format: Callable[[float], str]) -> list[str]:
    out = [f'<rect x="{LEFT}" y="{TOP}" width="{f.plot_w}" height="{f.plot_h}" class="frame"/>']
    for v in nice_ticks(f.y0, f.y1, 4):
        y = f.y(v)
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(y_format(v))}</text>')
    base = TOP + f.plot_h
    for t, text in _time_ticks(f.t0, f.t1):
        x = f.x(t)
        out.append(f'<text x="{x:.1f}" y="{base + 18}" text-anchor="middle">{escape(text)}</text>')
    return out


def _step_ticks(f: _Frame, starts: Sequence[float]) -> list[str]:
    inside = [t for t in starts if f.t0 <= t <= f.t1]
    if not inside:
        return []
    every = max(1, math.ceil(len(inside) / MAX_STEP_TICKS))
    base = TOP + f.plot_h
    d = "".join(f"M{f.x(t):.1f} {base}v-7" for t in inside[::every])
    return [f'<path d="{d}" class="step-tick"/>']


def _line(f: _Frame, ln: Line, ts: list[float], ys: list[Optional[float]]) -> list[str]:
    xs = [f.x(t) for t in ts]
    py = [None if v is None else f.y(v) for v in ys]
    d = _path(xs, py)
    if not d:
        return []
    out = []
    color = escape(ln.color)
    if ln.fill:
        for seg in _segments(xs, py):
            base = TOP + f.plot_h
            pts = "".join(f"L{x:.1f} {y:.1f}" for x, y in seg)
            out.append(f'<path d="M{seg[0][0]:.1f} {base}{pts}L{seg[-1][0]:.1f} {base}Z" '
                       f'fill="{color}" fill-opacity="0.12" stroke="none"/>')
    dash = ' stroke-dasharray="5 4"' if ln.dashed else ""
    out.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="1.6"{dash} '
               f'vector-effect="non-scaling-stroke"><title>{escape(ln.label)}</title></path>')
    return out


def _segments(xs, ys):
    seg: list[tuple[float, float]] = []
    for x, y in zip(xs, ys):
        if y is None:
            if seg:
                yield seg
            seg = []
        else:
            seg.append((x, y))
    if seg:
        yield seg
