"""Host-to-GPU copy bandwidth: pinned and pageable copies against the PCIe link (full check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Benchmark, Item, grade_of
from ..peaks import pcie_bandwidth_gbps
from ..results import PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "LINK_SHARE"]

LINK_SHARE = 0.5  # warn below this share of the link's bandwidth (pinned copies)


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    gbps = m.details.get("gbps", {})
    links = [pcie_bandwidth_gbps(g.pcie_gen_max or g.pcie_gen, g.pcie_width_max or g.pcie_width)
             for g in f.environment.gpus]
    link = min((x for x in links if x), default=None)
    note = f"pageable {gbps.get('pageable', '?')} GB/s vs pinned {gbps.get('pinned', '?')} GB/s"
    if gbps.get("pageable") and gbps.get("pinned") and gbps["pageable"] < 0.6 * gbps["pinned"]:
        note += "; use DataLoader(pin_memory=True) and .to(device, non_blocking=True)"
    if link is None:
        return grade_of(m, PASS, "PCIe link unknown", note, required=req)
    threshold = f">= {LINK_SHARE:.0%} of the link's {link:.0f} GB/s (pinned)"
    if m.value < LINK_SHARE * link:
        return grade_of(m, WARN, threshold, "slow copies to the GPU: " + note,
                        "check the PCIe slot and link (see 'GPU PCIe link'), and NUMA placement", req)
    return grade_of(m, PASS, threshold, note, required=req)


ITEM = Item("h2d", "Host-to-GPU copy bandwidth", grade, order=220, needs_gpu=True,
            benchmark=Benchmark("h2d", ("--seconds", "2"), timeout=90, unit="GB/s", needs_torch=True))
