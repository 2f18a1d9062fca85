"""GPU throttling, power cap: a GPU slowing itself down now, or capped below its maximum power."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...machine import THROTTLE_SLOWDOWN, throttle_reasons_in
from ..item import Item, grade_of
from ..results import PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "POWER_CAP_SHARE"]

POWER_CAP_SHARE = 0.9  # warn when the power limit is below this share of the maximum


def measure(f: MachineFacts) -> Measurement:
    gpus = f.environment.gpus
    if not gpus:
        return ITEM.measured(reason=f.environment.nvml.reason or "NVML unavailable")
    reasons = list(f.throttle_reasons) + [None] * len(gpus)
    per_gpu = [{"index": g.index, "throttle_reasons": r, "power_limit_w": g.power_limit_w,
                "power_max_w": g.power_max_w} for g, r in zip(gpus, reasons)]
    caps = [p["power_limit_w"] / p["power_max_w"] for p in per_gpu if p["power_limit_w"] and p["power_max_w"]]
    lowest_cap = min(caps) if caps else None
    if lowest_cap is None and all(p["throttle_reasons"] is None for p in per_gpu):
        return ITEM.measured(reason="NVML reported neither throttle reasons nor power limits",
                             details={"gpus": per_gpu})
    shown = f"power cap {lowest_cap:.0%} of max" if lowest_cap is not None else "power cap unknown"
    return ITEM.measured(lowest_cap, shown=shown, details={"gpus": per_gpu})


def _slowdowns(gpus: list[dict[str, Any]]) -> list[str]:
    return [f"GPU {g['index']}: {r.label}" for g in gpus
            for r in throttle_reasons_in(g.get("throttle_reasons") or 0, THROTTLE_SLOWDOWN)]


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    threshold = f"no thermal/power slowdown, power cap >= {POWER_CAP_SHARE:.0%} of max"
    notes, fixes = [], []
    slow = _slowdowns(m.details.get("gpus", []))
    if slow:
        notes.append("the GPU is slowing itself down now: " + "; ".join(slow))
        fixes.append("check cooling and airflow (`nvidia-smi -q -d PERFORMANCE,TEMPERATURE`)")
    if m.value is not None and m.value < POWER_CAP_SHARE:
        notes.append("the power limit is set below the GPU's maximum: it will run slower")
        fixes.append("ask the administrator to raise it: `sudo nvidia-smi -pl <watts>`")
    if notes:
        return grade_of(m, WARN, threshold, "; ".join(notes), "; ".join(fixes), req)
    return grade_of(m, PASS, threshold, required=req)


ITEM = Item("gpu_clocks", "GPU throttling, power cap", grade, order=80, measure=measure, needs_gpu=True)
