"""A roofline drawn as inline SVG: each top op's achieved FLOP/s against its FLOPs per byte.

Both axes are logarithmic. The roof is the lower of the hardware's peak FLOP/s and its memory
bandwidth times the arithmetic intensity: an op left of the ridge point can at best run at the
bandwidth's pace (memory-bound), one right of it at the peak's (compute-bound). Its height under
the roof is how much of the hardware the op leaves unused. Hand-drawn for the reasons
``charts.py`` gives (size, no dependency, no script needed); every label is escaped here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

from markupsafe import Markup, escape

from .. import display
from .charts import PALETTE

__all__ = ["RoofPoint", "roofline_svg"]

_W, _H, _L, _R, _T, _B = 640, 300, 70, 16, 16, 40


@dataclass(frozen=True)
class RoofPoint:
    label: str
    intensity: float  # FLOPs per byte moved
    flops_per_s: float  # achieved
    color: str = PALETTE[0]
    whole_step: bool = False  # the step as a whole, drawn larger


def _decades(lo: float, hi: float) -> tuple[int, int]:
    return math.floor(math.log10(lo)), math.ceil(math.log10(hi))


def roofline_svg(points: Sequence[RoofPoint], peak: Optional[float], bandwidth: Optional[float],
                 label: str = "roofline") -> Optional[Markup]:
    """The chart, or None with nothing to place on it (no op with FLOPs and bytes)."""
    pts = [p for p in points if p.intensity > 0 and p.flops_per_s > 0]
    if not pts:
        return None
    xs = [p.intensity for p in pts]
    ys = [p.flops_per_s for p in pts] + ([peak] if peak else [])
    ridge = peak / bandwidth if peak and bandwidth else None
    x0, x1 = _decades(min(xs + ([ridge] if ridge else [])) / 2, max(xs + ([ridge] if ridge else [])) * 2)
    y0, y1 = _decades(min(ys) / 2, max(ys) * 1.5)
    x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)

    def px(v: float) -> float:
        return _L + (math.log10(v) - x0) / (x1 - x0) * (_W - _L - _R)

    def py(v: float) -> float:
        return _T + (1 - (math.log10(v) - y0) / (y1 - y0)) * (_H - _T - _B)

    out = [f'<svg class="chart roofline" viewBox="0 0 {_W} {_H}" role="img" aria-label="{escape(label)}" '
           'xmlns="http://www.w3.org/2000/svg">',
           f'<rect x="{_L}" y="{_T}" width="{_W - _L - _R}" height="{_H - _T - _B}" class="frame"/>']
    for d in range(y0, y1 + 1):
        y = py(10.0 ** d)
        out.append(f'<line x1="{_L}" x2="{_W - _R}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{_L - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(display.flop_rate(10.0 ** d))}</text>')
    for d in range(x0, x1 + 1):
        x = px(10.0 ** d)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_T}" y2="{_H - _B}" class="grid"/>'
                   f'<text x="{x:.1f}" y="{_H - _B + 16}" text-anchor="middle">{10.0 ** d:g}</text>')
    out.append(f'<text x="{(_L + _W - _R) / 2:.0f}" y="{_H - 6}" text-anchor="middle" class="axis-label">'
               'FLOPs per byte moved (arithmetic intensity)</text>')
    if peak:
        lo, hi = 10.0 ** x0, 10.0 ** x1
        if bandwidth:
            start = max(lo, peak / bandwidth / 10 ** (y1 - y0 + 1))
            knee = min(max(ridge, lo), hi)  # type: ignore[type-var]
            out.append(f'<path d="M{px(start):.1f} {py(max(start * bandwidth, 10.0 ** y0)):.1f}'
                       f'L{px(knee):.1f} {py(min(knee * bandwidth, peak)):.1f}L{px(hi):.1f} {py(peak):.1f}" '
                       'class="roof"/>')
        else:
            out.append(f'<path d="M{px(lo):.1f} {py(peak):.1f}L{px(hi):.1f} {py(peak):.1f}" class="roof"/>')
        out.append(f'<text x="{_W - _R - 4}" y="{py(peak) - 5:.1f}" text-anchor="end" class="limit-label">'
                   f'peak {escape(display.flop_rate(peak))}</text>')
    for p in pts:
        r = 6 if p.whole_step else 4
        out.append(f'<circle cx="{px(p.intensity):.1f}" cy="{py(p.flops_per_s):.1f}" r="{r}" '
                   f'fill="{escape(p.color)}" fill-opacity="0.85"><title>{escape(p.label)}: '
                   f'{escape(display.flop_rate(p.flops_per_s))} at {p.intensity:.3g} FLOP/byte</title></circle>')
    out.append("</svg>")
    return Markup("".join(out))
