"""GPU memory: the smallest GPU's memory; the course's models and batches must fit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...display import nbytes
from ..item import GIB, Item, Requirement, grade_bar, visible_gpus
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_GB"]

DEFAULT_GB = 6.0


def measure(f: MachineFacts) -> Measurement:
    sizes = [g.memory_total for g in visible_gpus(f) if g.memory_total]
    if not sizes:
        return ITEM.measured(reason="GPU memory size not reported")
    smallest = min(sizes)
    return ITEM.measured(smallest, unit="bytes", shown=nbytes(smallest), details={"per_gpu": sizes})


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    return grade_bar(m, m.value / GIB, ex.get("gpu_memory_gb"), DEFAULT_GB, "GiB",
                     "use a GPU with more memory, or smaller batches with gradient accumulation", req,
                     "models and batches of the course may not fit in GPU memory")


ITEM = Item("gpu_memory", "GPU memory", grade, order=60, measure=measure, needs_gpu=True,
            requirements=(Requirement("gpu_memory_gb"),))
