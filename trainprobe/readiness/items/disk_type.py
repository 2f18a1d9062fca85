"""Data disk type: many small reads from a network file system or a spinning disk are slow."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...record import DiskInfo
from ..item import Item, Requirement, data_disk, grade_of
from ..results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def _kind(d: DiskInfo) -> str:
    if d.network:
        return "network"
    if d.fstype in ("tmpfs", "ramfs"):
        return "memory"
    if d.rotational is None:
        return "unknown"
    return "rotational" if d.rotational else "ssd"


def measure(f: MachineFacts) -> Measurement:
    d = data_disk(f)
    if d is None or (d.fstype is None and d.rotational is None):
        return ITEM.measured()
    virtual = os.path.basename(d.device or "").startswith(("vd", "xvd"))  # virtio/xen: unreliable flag
    kind = _kind(d)
    flag = " (flag)" if virtual and kind == "rotational" else ""
    shown = f"{kind}{flag}: {d.device or '?'} {d.fstype or '?'} at {d.path}"
    return ITEM.measured(kind, shown=shown, details={
        "path": d.path, "device": d.device, "fstype": d.fstype, "rotational": d.rotational,
        "network": d.network, "virtual_device": virtual, "data_dir_given": f.data_dir is not None})


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    d = m.details
    course = ex.get("ssd")
    threshold = "local SSD (or memory)" + (" (course)" if course else "")
    fix = "copy the dataset to a local SSD (e.g. /tmp or a scratch disk) before training"
    where = "" if d.get("data_dir_given") else " (no --data given: the current folder's disk)"
    if m.value == "network":
        return grade_of(m, FAIL if course else WARN, threshold, f"data on a network file system "
                        f"({d.get('fstype')}): many small reads are slow{where}", fix, req)
    if m.value == "rotational" and d.get("virtual_device"):
        return grade_of(m, PASS, threshold, "a virtual disk: its 'rotational' flag is unreliable; the full check "
                        "with --data measures the real read speed", required=req)
    if m.value == "rotational":
        return grade_of(m, FAIL if course else WARN, threshold, f"the kernel reports a spinning disk{where}: "
                        "random reads of many small images are slow", fix, req)
    if m.value == "unknown":
        return grade_of(m, WARN if req else PASS, threshold, "could not tell the disk type", required=req)
    return grade_of(m, PASS, threshold, required=req)


ITEM = Item("disk_type", "Data disk type", grade, order=160, measure=measure, requirements=(Requirement("ssd", "flag"),))
