"""Usable CPU cores: CPU affinity and the cgroup quota applied; DataLoader workers need them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Item, Requirement, grade_bar
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_MIN"]

DEFAULT_MIN = 4


def measure(f: MachineFacts) -> Measurement:
    e = f.environment
    details = {"logical": e.logical_cores, "physical": e.physical_cores,
               "cgroup_limit": e.cgroup_cpu_limit, "model": e.cpu_model}
    if e.usable_cores is None:
        return ITEM.measured(details=details)
    limits = []
    if e.logical_cores and e.usable_cores < e.logical_cores:
        limits.append(f"of {e.logical_cores}")
    if e.cgroup_cpu_limit is not None:
        limits.append(f"cgroup quota {e.cgroup_cpu_limit:g}")
    shown = f"{e.usable_cores}" + (f" ({', '.join(limits)})" if limits else "")
    return ITEM.measured(e.usable_cores, shown=shown, details=details)


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    return grade_bar(m, float(m.value), ex.get("cores"), DEFAULT_MIN, "cores",
                     "use a machine (or container/VM limits) with more cores; check `taskset` and the "
                     "container's --cpus", req,
                     "few cores for DataLoader workers: data loading and augmentation may starve the GPU")


ITEM = Item("cpu_cores", "Usable CPU cores", grade, order=110, measure=measure, requirements=(Requirement("cores", "count"),))
