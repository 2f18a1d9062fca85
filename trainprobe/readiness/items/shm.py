"""Shared memory /dev/shm: DataLoader workers pass batches through it; Docker's default 64 MB is too small."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import GIB, Item, Requirement, grade_bar, size_measurement
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_GB", "FAIL_MIB"]

DEFAULT_GB = 2.0
FAIL_MIB = 256  # fails below this even without a course's bar


def measure(f: MachineFacts) -> Measurement:
    return size_measurement(ITEM, f.environment.shm_total, path="/dev/shm")


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    return grade_bar(m, m.value / GIB, ex.get("shm_gb"), DEFAULT_GB, "GiB",
                     "in Docker start the container with `--shm-size=8g` (or `--ipc=host`); on Kubernetes mount "
                     "an emptyDir with medium: Memory at /dev/shm", req,
                     "DataLoader workers pass batches through /dev/shm; too small and they crash with "
                     "'Bus error' or 'unable to write to file'", fail_below=FAIL_MIB / 1024)


ITEM = Item("shm", "Shared memory /dev/shm", grade, order=140, measure=measure, requirements=(Requirement("shm_gb"),))
