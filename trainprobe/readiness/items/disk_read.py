"""Data read throughput: reading the --data folder (full check with --data only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Benchmark, Item, Requirement, grade_bar, with_note
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_MIN"]

DEFAULT_MIN = 100.0  # MB/s


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    share = m.details.get("from_storage_share")
    g = grade_bar(m, float(m.value), ex.get("disk_read_mb_s"), DEFAULT_MIN, "MB/s",
                  "copy the dataset to a local SSD; pack many small files into larger shards", req,
                  "slow reads: the first epoch (and every epoch if the data does not fit in RAM) will wait on disk")
    if share is not None and share < 0.5:
        return with_note(g, f"only {share:.0%} came from the disk: the page cache served the rest, so this is "
                            "closer to memory speed than to the disk's")
    return g


ITEM = Item("disk_read", "Data read throughput", grade, order=190,
            benchmark=Benchmark("disk_read", ("--seconds", "5", "--max-mb", "512"), timeout=60, unit="MB/s",
                                needs_data=True),
            requirements=(Requirement("disk_read_mb_s"),))
