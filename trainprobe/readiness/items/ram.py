"""RAM: the machine's memory; with too little, DataLoader workers and cached datasets get killed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import GIB, Item, Requirement, grade_bar, size_measurement
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_GB"]

DEFAULT_GB = 8.0


def measure(f: MachineFacts) -> Measurement:
    return size_measurement(ITEM, f.environment.ram_total)


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    return grade_bar(m, m.value / GIB, ex.get("ram_gb"), DEFAULT_GB, "GiB",
                     "use a machine with more RAM, fewer DataLoader workers, or a smaller dataset cache", req,
                     "little RAM: DataLoader workers and datasets held in memory may be killed")


ITEM = Item("ram", "RAM", grade, order=120, measure=measure, requirements=(Requirement("ram_gb"),))
