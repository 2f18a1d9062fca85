"""Free disk: datasets, checkpoints and caches need room on the data's disk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...display import nbytes
from ..item import GIB, Item, Requirement, data_disk, grade_bar
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_GB", "FAIL_GB"]

DEFAULT_GB = 20.0
FAIL_GB = 2.0  # fails below this even without a course's bar


def measure(f: MachineFacts) -> Measurement:
    d = data_disk(f)
    if d is None or d.free_bytes is None:
        return ITEM.measured()
    return ITEM.measured(d.free_bytes, unit="bytes", shown=f"{nbytes(d.free_bytes)} at {d.path}",
                         details={"path": d.path, "total": d.total_bytes, "data_dir_given": f.data_dir is not None})


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    return grade_bar(m, m.value / GIB, ex.get("disk_free_gb"), DEFAULT_GB, "GiB",
                     "free space (`du -sh ~/.cache/*`, `pip cache purge`, `conda clean -a`) or put data on a "
                     "larger disk", req, "datasets, checkpoints and caches need room", fail_below=FAIL_GB)


ITEM = Item("disk_free", "Free disk", grade, order=150, measure=measure, requirements=(Requirement("disk_free_gb"),))
