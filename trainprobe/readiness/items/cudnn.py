"""cuDNN: torch's convolution library on the GPU."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import FIX_TORCH, NO_GPU_REASON, Item, grade_of, torch_missing
from ..results import PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def measure(f: MachineFacts) -> Measurement:
    t = f.torch
    if torch_missing(f):
        return ITEM.skipped("torch not importable")
    version = t.cudnn if t.cudnn_available else None
    details = {"version": t.cudnn, "available": t.cudnn_available}
    if not f.has_gpu:
        carried = f"; the build carries cuDNN {version}" if version else ""
        return ITEM.skipped(NO_GPU_REASON + carried, details=details)
    return ITEM.measured(version, shown=str(version) if version else None,
                         reason=None if version else "torch has no cuDNN", details=details)


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    if m.value is None:
        return grade_of(m, WARN, "available", "convolutions will be much slower without cuDNN", FIX_TORCH, req)
    return grade_of(m, PASS, "available", required=req)


ITEM = Item("cudnn", "cuDNN", grade, order=100, measure=measure, grades_missing=True)
