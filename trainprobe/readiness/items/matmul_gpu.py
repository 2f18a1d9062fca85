"""GPU matmul vs peak: TFLOP/s per dtype against the GPU's datasheet (full check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Benchmark, Item, grade_of
from ..peaks import expected_peaks
from ..results import PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "PEAK_SHARE"]

PEAK_SHARE = 0.4  # warn below this share of the datasheet's peak, in the best dtype


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    tflops = m.details.get("tflops", {})
    peaks = expected_peaks(str(m.details.get("device", "")))
    if not peaks:
        return grade_of(m, PASS, "expected peak unknown for this GPU", required=req)
    shares = {k: v / peaks[k] for k, v in tflops.items() if k in peaks and peaks[k]}
    threshold = f">= {PEAK_SHARE:.0%} of datasheet peak"
    if not shares:
        return grade_of(m, PASS, threshold, "no dtype with a known peak", required=req)
    note = ", ".join(f"{k} {tflops[k]:g}/{peaks[k]:g} TFLOP/s ({shares[k]:.0%})" for k in shares)
    if max(shares.values()) < PEAK_SHARE:
        return grade_of(m, WARN, threshold, f"far below the datasheet: {note}",
                        "check throttling, power cap and other processes on the GPU (`nvidia-smi`)", req)
    return grade_of(m, PASS, threshold, note, required=req)


ITEM = Item("matmul_gpu", "GPU matmul vs peak", grade, order=210, needs_gpu=True,
            benchmark=Benchmark("matmul_gpu", ("--seconds", "4"), timeout=120, unit="TFLOP/s", needs_torch=True))
