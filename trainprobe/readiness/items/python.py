"""Python: the interpreter's version; recent torch releases need a recent one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Item, Requirement, at_least, grade_of
from ..results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_MIN"]

DEFAULT_MIN = "3.10"
FLOOR = "3.9"  # older fails even when the course sets no bar


def measure(f: MachineFacts) -> Measurement:
    v = f.environment.python
    return ITEM.measured(v or None, shown=v or None)


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    need = ex.get("python_min") or DEFAULT_MIN
    if at_least(m.value, need):
        return grade_of(m, PASS, f">= {need}", required=req)
    status = FAIL if ex.get("python_min") or not at_least(m.value, FLOOR) else WARN
    return grade_of(m, status, f">= {need}", "recent torch releases need a newer Python",
                    f"install Python {need} or newer (e.g. a new conda or venv environment)", req)


ITEM = Item("python", "Python", grade, order=10, measure=measure, requirements=(Requirement("python_min", "version"),))
