"""Swap: without it, running out of RAM kills training without a warning."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import GIB, Item, grade_of, size_measurement
from ..results import PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "SMALL_RAM_GB"]

SMALL_RAM_GB = 16  # below this much RAM, no swap is a warning


def measure(f: MachineFacts) -> Measurement:
    return size_measurement(ITEM, f.environment.swap_total, ram_total=f.environment.ram_total)


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    ram = m.details.get("ram_total") or 0
    threshold = f"some swap when RAM < {SMALL_RAM_GB} GiB"
    if m.value == 0 and ram < SMALL_RAM_GB * GIB:
        return grade_of(m, WARN, threshold,
                        "no swap and little RAM: running out of memory kills training without warning",
                        "add a swap file (`sudo fallocate -l 8G /swapfile && sudo mkswap /swapfile && "
                        "sudo swapon /swapfile`)", req)
    return grade_of(m, PASS, threshold, required=req)


ITEM = Item("swap", "Swap", grade, order=130, measure=measure)
