"""A second run for scripts that end before the profiling windows: windows fitted to the first run.

The default windows are sized by time (a steady window of seconds, then
torch.profiler and cProfile). A script that ends first (a 50-step example, one
short epoch) leaves a record without an op profile or a Python profile, so
the findings that need them cannot speak. The first run taught how many steps
the script makes; the second one spreads the windows over them, and stops
once they are done: it costs at most the script's own length.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Optional

from ..facts.window import MIN_STEADY_STEPS
from ..record import RunRecord
from .config import WindowPlan

__all__ = ["windows_missed", "fitted_plan", "refit", "set_aside", "FIRST_RUN", "MIN_STEPS_TO_FIT"]

FIRST_RUN = "first-run"  # where the first run's files go, beside the second's
MIN_STEPS_TO_FIT = MIN_STEADY_STEPS + 5  # a warm-up step, the steady window, 2 + 2 profiled steps


def _training_steps(record: RunRecord) -> int:
    return sum(1 for s in record.steps if not s.validation)


def windows_missed(record: RunRecord, plan: WindowPlan) -> bool:
    """The script ended by itself before a profiling window it was meant to get."""
    if record.outcome.status != "completed":
        return False
    return (plan.profiler and not record.profiler.availability.available) or \
        (plan.cprofile and not record.hotspots.availability.available)


def fitted_plan(plan: WindowPlan, steps: int) -> Optional[WindowPlan]:
    """Windows that fit ``steps`` training steps (the last one is kept as a margin); None when even
    the smallest windows do not fit."""
    usable = steps - 1
    profiled = 3 if usable >= 20 else 2
    per_window = (profiled if plan.profiler else 0) + (profiled if plan.cprofile else 0)
    warmup = max(1, min(plan.warmup_steps, usable // 10))
    steady = usable - warmup - per_window
    if steady < MIN_STEADY_STEPS:
        return None
    unbounded = 1e9  # counted by steps, not seconds
    return dataclasses.replace(
        plan, warmup_steps=warmup, warmup_max_seconds=unbounded, steps=steady, steady_max_seconds=unbounded,
        profile_min_steps=profiled, profile_max_steps=profiled, profile_seconds=0.0,
        cprofile_min_steps=profiled, cprofile_max_steps=profiled, cprofile_seconds=0.0)


def refit(record: RunRecord, plan: WindowPlan) -> Optional[WindowPlan]:
    """The plan for a second run, when the first missed its windows and its steps allow one."""
    if not windows_missed(record, plan):
        return None
    return fitted_plan(plan, _training_steps(record))


def set_aside(out_dir: Path) -> Path:
    """Move the first run's files into ``out_dir/first-run`` so the second run starts clean."""
    target = out_dir / FIRST_RUN
    target.mkdir(exist_ok=True)
    for item in list(out_dir.iterdir()):
        if item.name != FIRST_RUN:
            shutil.move(str(item), str(target / item.name))
    return target

