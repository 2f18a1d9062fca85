"""GPU PCIe link: a GPU on fewer lanes than it supports copies data to it more slowly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Item, grade_of
from ..results import PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def measure(f: MachineFacts) -> Measurement:
    links = [g for g in f.environment.gpus if g.pcie_gen and g.pcie_width]
    if not links:
        return ITEM.measured(reason=f.environment.nvml.reason or "PCIe link not reported by NVML")
    worst = min(links, key=lambda g: (g.pcie_width or 0) / (g.pcie_width_max or g.pcie_width or 1))
    shown = (f"Gen{worst.pcie_gen} x{worst.pcie_width} "
             f"(max Gen{worst.pcie_gen_max or '?'} x{worst.pcie_width_max or '?'})")
    return ITEM.measured(worst.pcie_width, shown=shown, details={
        "gpus": [{"index": g.index, "gen": g.pcie_gen, "gen_max": g.pcie_gen_max,
                  "width": g.pcie_width, "width_max": g.pcie_width_max} for g in links]})


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    threshold = "link width at its maximum"
    gpus = m.details.get("gpus", [])
    if any(g.get("width_max") and g["width"] < g["width_max"] for g in gpus):
        return grade_of(m, WARN, threshold, "the GPU runs on fewer PCIe lanes than it supports: host-to-GPU "
                        "copies are slower", "seat the GPU in a full x16 slot; check BIOS lane sharing", req)
    slow_gen = any(g.get("gen_max") and g["gen"] < g["gen_max"] for g in gpus)
    note = ("link below its top generation now; idle GPUs slow the link to save power, "
            "the full check measures copies under load") if slow_gen else None
    return grade_of(m, PASS, threshold, note, required=req)


ITEM = Item("gpu_pcie", "GPU PCIe link", grade, order=90, measure=measure, needs_gpu=True)
