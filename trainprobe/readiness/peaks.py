"""Datasheet dense peak throughput of common NVIDIA GPUs, in TFLOP/s.

Dense figures (NVIDIA quotes tensor-core figures "with sparsity" at twice
these). fp16/bf16 are with fp32 accumulation, which is what PyTorch uses.
A GPU not listed here gets "peak unknown": we never guess a figure.
Matched by substring of the NVML/torch device name, most specific first.
"""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["GPU_PEAKS", "expected_peaks", "pcie_bandwidth_gbps"]

# name fragment -> {dtype: TFLOP/s}
GPU_PEAKS: tuple[tuple[str, dict[str, float]], ...] = (
    ("H100 PCIe", {"fp32": 51.2, "tf32": 378.0, "fp16": 756.0, "bf16": 756.0}),
    ("H100", {"fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4}),  # SXM
    ("H200", {"fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4}),
    ("A100", {"fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0}),
    ("L40S", {"fp32": 91.6, "tf32": 183.0, "fp16": 362.0, "bf16": 362.0}),
    ("A10", {"fp32": 31.2, "tf32": 62.5, "fp16": 125.0, "bf16": 125.0}),
    ("L4", {"fp32": 30.3, "tf32": 60.0, "fp16": 121.0, "bf16": 121.0}),
    ("T4", {"fp32": 8.1, "fp16": 65.0}),
    ("V100", {"fp32": 15.7, "fp16": 125.0}),
    ("RTX 4090", {"fp32": 82.6, "tf32": 82.6, "fp16": 165.2, "bf16": 165.2}),
    ("RTX 3090", {"fp32": 35.6, "tf32": 35.6, "fp16": 71.0, "bf16": 71.0}),
)

# Usable PCIe bandwidth per lane and direction, GB/s, after line encoding.
_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def expected_peaks(name: str) -> Optional[dict[str, float]]:
    for fragment, peaks in GPU_PEAKS:
        # whole words only: "A10" must not match "A100" or "A10G", "L4" not "L40"
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(fragment)}(?![A-Za-z0-9])", name, re.I):
            return peaks
    return None


def pcie_bandwidth_gbps(gen: Optional[int], width: Optional[int]) -> Optional[float]:
    if not gen or not width or gen not in _LANE_GBPS:
        return None
    return _LANE_GBPS[gen] * width
