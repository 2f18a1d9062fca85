"""CPU matmul (fp32): the CPU's speed at torch's own work, for comparison (full check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Benchmark, Item, grade_of
from ..results import PASS, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    return grade_of(m, PASS, "none (for comparison)", f"{m.details.get('threads')} torch threads, 1024x1024 fp32",
                    required=req)


ITEM = Item("matmul_cpu", "CPU matmul (fp32)", grade, order=200,
            benchmark=Benchmark("matmul_cpu", ("--seconds", "2"), timeout=60, unit="GFLOP/s", needs_torch=True))
