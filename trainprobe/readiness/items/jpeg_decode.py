"""JPEG decode per core: image datasets are CPU-bound when decoding is slow (full check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Benchmark, Item, Requirement, grade_bar, with_note
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_MIN"]

DEFAULT_MIN = 150.0  # images/s/core


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    cores = f.environment.usable_cores or 1
    g = grade_bar(m, float(m.value), ex.get("jpeg_decode_per_core"), DEFAULT_MIN, "images/s/core",
                  "install Pillow with libjpeg-turbo (pip install --force-reinstall pillow), or pillow-SIMD", req,
                  "slow JPEG decoding: image datasets will be CPU-bound")
    return with_note(g, f"~{m.value * cores:,.0f} images/s with all {cores} usable cores (500x375 JPEG, decode only)")


ITEM = Item("jpeg_decode", "JPEG decode per core", grade, order=180,
            benchmark=Benchmark("jpeg_decode", ("--seconds", "3"), timeout=60, unit="images/s/core"),
            requirements=(Requirement("jpeg_decode_per_core"),))
