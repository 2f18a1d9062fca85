"""PyTorch: importable in a fresh process, and recent enough."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import FIX_TORCH, Item, Requirement, at_least, grade_of, torch_missing
from ..results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_MIN"]

DEFAULT_MIN = "2.0"


def measure(f: MachineFacts) -> Measurement:
    missing = torch_missing(f)
    if missing:
        return ITEM.measured(reason=missing)
    t = f.torch
    build = f"CUDA {t.cuda_build} build" if t.cuda_build else "CPU-only build"
    return ITEM.measured(t.torch, shown=f"{t.torch} ({build})",
                         details={"cuda_build": t.cuda_build, "import_seconds": t.import_seconds})


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    need = ex.get("torch_min") or DEFAULT_MIN
    if m.value is None:
        return grade_of(m, FAIL, f"importable, >= {need}", "the course's code cannot run without torch",
                        FIX_TORCH, req)
    if at_least(m.value, need):
        return grade_of(m, PASS, f">= {need}", required=req)
    return grade_of(m, FAIL if ex.get("torch_min") else WARN, f">= {need}",
                    "this torch is older than the course expects",
                    f"pip install --upgrade 'torch>={need}' torchvision", req)


ITEM = Item("torch", "PyTorch", grade, order=20, measure=measure, grades_missing=True,
            requirements=(Requirement("torch_min", "version"),))
