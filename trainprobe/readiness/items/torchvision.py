"""torchvision build: installed, built for this torch, and its compiled ops run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..item import FIX_MATCHING, Item, Requirement, at_least, grade_of, parse_version, torch_missing
from ..results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def measure(f: MachineFacts) -> Measurement:
    t = f.torch
    missing = torch_missing(f)
    if missing:
        return ITEM.skipped(f"torch not importable: {missing}")
    details = {"ops_ok": t.torchvision_ops.available, "error": t.torchvision_ops.reason,
               "requires": t.torchvision_requires_torch, "torch": t.torch}
    if t.torchvision is None:
        return ITEM.measured(reason=t.torchvision_ops.reason or "not installed", details=details)
    shown = f"{t.torchvision}, ops {'work' if t.torchvision_ops.available else 'BROKEN'}"
    return ITEM.measured(t.torchvision, shown=shown, details=details)


def _pinned_to_other_torch(d: dict) -> Optional[str]:
    """The torch version torchvision was built for, when its metadata pins another one."""
    pin = str(d.get("requires") or "")
    if "==" not in pin:
        return None
    pinned = pin.split("==", 1)[1].strip(" )")
    same = parse_version(pinned)[:2] == (parse_version(str(d.get("torch"))) or ())[:2]  # type: ignore[index]
    return None if same else pinned


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    d = m.details
    need = ex.get("torchvision_min")
    threshold = "imports, ops run" + (f", >= {need}" if need else "")
    error = d.get("error") or ""
    if m.value is None and "not installed" not in error and error:
        return grade_of(m, FAIL, threshold, f"torchvision is broken: {error[:200]}", FIX_MATCHING, req)
    if m.value is None:
        return grade_of(m, FAIL if req else WARN, threshold,
                        "torchvision is not installed (models, datasets, transforms)",
                        "pip install torchvision (together with torch, from the same index)", req)
    if not d.get("ops_ok"):
        note = ("torch and torchvision come from different builds (`operator torchvision::nms does not exist`)"
                if "does not exist" in error else f"torchvision's compiled ops fail: {error[:200]}")
        return grade_of(m, FAIL, threshold, note, FIX_MATCHING, req)
    pinned = _pinned_to_other_torch(d)
    if pinned:
        return grade_of(m, WARN, threshold, f"torchvision was built for torch {pinned}, torch is {d.get('torch')}",
                        FIX_MATCHING, req)
    if need and not at_least(m.value, need):
        return grade_of(m, FAIL, threshold, "older than the course expects",
                        f"pip install --upgrade torch 'torchvision>={need}'", req)
    return grade_of(m, PASS, threshold, required=req)


ITEM = Item("torchvision", "torchvision build", grade, order=30, measure=measure, grades_missing=True,
            requirements=(Requirement("torchvision_min", "version"),))
