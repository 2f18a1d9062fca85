"""Grading: Measurement + Expectations -> Grade (pass / warn / fail / skip).

Each item grades its own measurement (:mod:`.items`): its defaults say what a
typical deep-learning course needs, and a course's ``--expect`` file overrides
a threshold and makes the item required, so a shortfall there fails instead
of warning. This module does what is the same for every item: skipped and
unmeasured items, required items that were not measured, and the verdict.
Grading never measures anything: recorded results re-grade identically on
any machine.
"""

from __future__ import annotations

from .expect import Expectations
from .item import FIX_GPU, FIX_TORCH, grade_of
from .items import BY_KEY
from .results import EXIT_CODES, FAIL, NOT_READY, READY, SKIP, WARN, WARNINGS, Grade, MachineFacts, Measurement

__all__ = ["grade_all", "grade_one", "verdict_of"]


def grade_one(m: Measurement, ex: Expectations, facts: MachineFacts) -> Grade:
    item = BY_KEY[m.key]
    req = m.key in ex.required_items()
    if m.skipped:
        if req:
            fix = FIX_GPU if "GPU" in (m.reason or "") else FIX_TORCH
            return grade_of(m, FAIL, "required by the course", f"required, but {m.reason}", fix, True)
        return grade_of(m, SKIP, "")
    if m.value is None and not item.grades_missing:
        return grade_of(m, FAIL if req else WARN, "", f"could not measure: {m.reason or 'unknown reason'}",
                        None, req)
    try:
        return item.grade(m, ex, facts, req)
    except Exception as exc:  # noqa: BLE001 - a malformed recorded value must not sink the whole check
        return grade_of(m, WARN, "", f"could not grade this value ({type(exc).__name__}: {exc})", None, req)


def _not_measured(key: str, mode: str) -> Grade:
    """A required item the check did not measure: a warning in --quick, else a failure."""
    item = BY_KEY[key]
    if mode == "quick" and item.benchmark is not None:
        why = "not measured with --quick: run the full check"
    else:
        needs_data = item.benchmark is not None and item.benchmark.needs_data
        why = "not measured" + (": run with --data DIR" if needs_data else "")
    return Grade(key=key, title=item.title, status=WARN if mode == "quick" else FAIL,
                 measured=why, threshold="required by the course", note=why, required=True)


def grade_all(measurements: tuple[Measurement, ...], ex: Expectations, facts: MachineFacts,
              mode: str = "full") -> tuple[Grade, ...]:
    grades = [grade_one(m, ex, facts) for m in measurements if m.key in BY_KEY]
    present = {m.key for m in measurements}
    grades += [_not_measured(key, mode) for key in sorted(ex.required_items() - present)]
    return tuple(grades)


def verdict_of(grades: tuple[Grade, ...]) -> tuple[str, int]:
    statuses = {g.status for g in grades}
    verdict = NOT_READY if FAIL in statuses else WARNINGS if WARN in statuses else READY
    return verdict, EXIT_CODES[verdict]
