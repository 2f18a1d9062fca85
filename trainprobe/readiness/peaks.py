"""Datasheet dense peak throughput and memory bandwidth of common NVIDIA GPUs.

One table serves ``trainprobe check`` (is this GPU as fast as its kind should be?) and
``diagnose``/``trace`` (how far is the step from the hardware's ceiling: MFU). Dense figures:
NVIDIA quotes tensor-core figures "with sparsity" at twice these. fp16/bf16 are with fp32
accumulation, which is what PyTorch uses. A GPU not listed here gets "peak unknown": we never
guess a figure. Matched by whole words of the NVML/torch device name, most specific first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

__all__ = ["GPU_PEAKS", "GpuPeak", "expected_peaks", "gpu_peak", "pcie_bandwidth_gbps"]

_H100 = "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100)"
_A100 = "NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100)"


@dataclass(frozen=True)
class GpuPeak:
    """A GPU kind's datasheet ceiling."""

    fragment: str  # what the device name must contain, as whole words
    tflops: dict[str, float]  # dtype -> dense TFLOP/s
    memory_tb_per_s: Optional[float]  # HBM/GDDR bandwidth, TB/s (None: the name does not say which memory)
    reference: str

    @property
    def flops_per_s(self) -> dict[str, float]:
        return {dtype: value * 1e12 for dtype, value in self.tflops.items()}


GPU_PEAKS: tuple[GpuPeak, ...] = (
    GpuPeak("H100 PCIe", {"fp32": 51.2, "tf32": 378.0, "fp16": 756.0, "bf16": 756.0}, 2.0, _H100),
    GpuPeak("H100", {"fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4}, 3.35, _H100),  # SXM5
    GpuPeak("H200", {"fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4}, 4.8,
            "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200)"),
    # HGX B200 at 1,000 W, as NVIDIA's Blackwell datasheet gives it (tabulated at
    # glennklockwood.com/garden/processors/B200).
    GpuPeak("B200", {"fp32": 80.0, "tf32": 1100.0, "fp16": 2250.0, "bf16": 2250.0}, 8.0,
            "NVIDIA HGX B200 (1,000 W) datasheet figures"),
    GpuPeak("A100 80GB PCIe", {"fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0}, 1.935, _A100),
    GpuPeak("A100-SXM4-80GB", {"fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0}, 2.039, _A100),
    GpuPeak("A100-SXM4-40GB", {"fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0}, 1.555, _A100),
    GpuPeak("A100", {"fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0}, None, _A100),
    GpuPeak("L40S", {"fp32": 91.6, "tf32": 183.0, "fp16": 362.0, "bf16": 362.0}, 0.864,
            "NVIDIA L40S datasheet"),
    GpuPeak("A10", {"fp32": 31.2, "tf32": 62.5, "fp16": 125.0, "bf16": 125.0}, 0.6, "NVIDIA A10 datasheet"),
    GpuPeak("L4", {"fp32": 30.3, "tf32": 60.0, "fp16": 121.0, "bf16": 121.0}, 0.3, "NVIDIA L4 datasheet"),
    GpuPeak("T4", {"fp32": 8.1, "fp16": 65.0}, 0.32, "NVIDIA T4 datasheet"),
    GpuPeak("V100", {"fp32": 15.7, "fp16": 125.0}, 0.9, "NVIDIA V100 datasheet (SXM2)"),
    GpuPeak("RTX 4090", {"fp32": 82.6, "tf32": 82.6, "fp16": 165.2, "bf16": 165.2}, 1.008,
            "NVIDIA Ada GPU architecture whitepaper (GeForce RTX 4090)"),
    GpuPeak("RTX 3090", {"fp32": 35.6, "tf32": 35.6, "fp16": 71.0, "bf16": 71.0}, 0.936,
            "NVIDIA Ampere GA102 GPU architecture whitepaper (GeForce RTX 3090)"),
)

# Usable PCIe bandwidth per lane and direction, GB/s, after line encoding.
_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def _matches(fragment: str, name: str) -> bool:
    # whole words only: "A10" must not match "A100" or "A10G", "L4" not "L40"
    words = r"[\s_-]+".join(re.escape(part) for part in re.split(r"[\s_-]+", fragment))
    return re.search(rf"(?<![A-Za-z0-9]){words}(?![A-Za-z0-9])", name, re.I) is not None


def gpu_peak(name: str) -> Optional[GpuPeak]:
    """The datasheet ceiling of the GPU named ``name`` (NVML's or torch's name), or None."""
    for peak in GPU_PEAKS:
        if _matches(peak.fragment, name):
            return peak
    return None


def expected_peaks(name: str) -> Optional[dict[str, float]]:
    """dtype -> dense TFLOP/s for the GPU named ``name``, or None when it is not in the table."""
    peak = gpu_peak(name)
    return dict(peak.tflops) if peak is not None else None


def pcie_bandwidth_gbps(gen: Optional[int], width: Optional[int]) -> Optional[float]:
    if not gen or not width or gen not in _LANE_GBPS:
        return None
    return _LANE_GBPS[gen] * width
