"""Pillow / JPEG library: torchvision's image datasets decode with Pillow; libjpeg-turbo is 2-3x faster."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...display import UNKNOWN
from ..item import Item, grade_of
from ..results import PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def measure(f: MachineFacts) -> Measurement:
    e = f.environment
    if e.pillow is None:
        return ITEM.measured(reason="Pillow is not installed")
    turbo = {True: "libjpeg-turbo", False: "plain libjpeg", None: f"libjpeg-turbo: {UNKNOWN}"}[e.libjpeg_turbo]
    shown = ", ".join((e.pillow, "pillow-SIMD" if e.pillow_simd else "not SIMD", turbo))
    return ITEM.measured(e.pillow, shown=shown, details={"simd": e.pillow_simd, "libjpeg_turbo": e.libjpeg_turbo})


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    threshold = "installed, with libjpeg-turbo"
    if m.value is None:
        return grade_of(m, WARN, threshold, "torchvision's image datasets need Pillow", "pip install pillow", req)
    if m.details.get("libjpeg_turbo") is False:
        return grade_of(m, WARN, threshold, "Pillow without libjpeg-turbo decodes JPEGs 2-3x slower",
                        "pip install --force-reinstall pillow (PyPI wheels ship libjpeg-turbo)", req)
    note = None if m.details.get("simd") else "optional: pillow-SIMD can resize/augment faster"
    return grade_of(m, PASS, threshold, note, required=req)


ITEM = Item("pillow", "Pillow / JPEG library", grade, order=170, measure=measure, grades_missing=True)
