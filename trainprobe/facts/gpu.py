"""GPU facts from the NVML samples: utilization, power, clocks, memory, throttling."""

from __future__ import annotations

from typing import Optional

from ..record import GpuInfo, GpuSeries, RunRecord
from ._stats import clean, median, percentile, ratio
from .window import in_window, steady_span

__all__ = ["FAMILY", "FACTS", "compute"]

FAMILY = "gpu"

FACTS = {
    "gpu_metrics_available": ("bool", "NVML samples of the GPU exist for this run."),
    "gpu_name": ("text", "Name of the GPU the run used."),
    "compute_capability": ("x", "CUDA compute capability of that GPU (e.g. 8.0)."),
    "tensor_cores": ("bool", "The GPU has tensor cores (compute capability 7.0 or newer)."),
    "gpu_bf16": ("bool", "The GPU computes in bfloat16 natively (compute capability 8.0 or newer)."),
    "gpu_tf32": ("bool", "The GPU supports TF32 (compute capability 8.0 or newer)."),
    "gpu_util_p50": ("percent", "Median SM utilization of the run's GPU during the steady steps."),
    "gpu_util_p95": ("percent", "95th percentile of SM utilization."),
    "gpus_busy": ("count", "GPUs whose median utilization was above 10% during the steady steps."),
    "power_share_of_limit": ("share", "Median power draw over the power limit."),
    "power_w_median": ("W", "Median power draw."),
    "sm_clock_share": ("share", "Median SM clock over the maximum SM clock."),
    "temperature_max": ("C", "Highest GPU temperature seen."),
    "throttle_thermal_share": ("share", "Share of samples with a thermal slowdown reason set."),
    "throttle_power_share": ("share", "Share of samples with a power-cap/power-brake reason set."),
    "gpu_memory_total": ("bytes", "Memory of the run's GPU."),
    "gpu_memory_peak": ("bytes", "Most GPU memory in use during the run (all processes)."),
    "gpu_memory_peak_share": ("share", "gpu_memory_peak over the GPU's memory."),
}

from ..machine import THROTTLE_THERMAL as _THERMAL  # SwThermalSlowdown, HwThermalSlowdown
from ..machine import THROTTLE_POWER as _POWER  # SwPowerCap, HwPowerBrakeSlowdown


def _run_gpu(record: RunRecord) -> Optional[GpuSeries]:
    """The series of the GPU the run used most (its processes' memory, else index 0)."""
    series = record.samples.gpus
    if not series:
        return None

    def used(s: GpuSeries) -> float:
        return max(clean(s.process_mem_used), default=0.0)

    best = max(series, key=used)
    return best if used(best) > 0 else series[0]


def _info(record: RunRecord, index: int) -> Optional[GpuInfo]:
    for g in record.environment.gpus:
        if g.index == index:
            return g
    return record.environment.gpus[0] if record.environment.gpus else None


def _capability_facts(info: Optional[GpuInfo]) -> dict[str, object]:
    if info is None:
        return {}
    cc = None
    try:
        cc = float(info.compute_capability) if info.compute_capability else None
    except ValueError:
        pass
    return {
        "gpu_name": info.name or None,
        "compute_capability": cc,
        "tensor_cores": None if cc is None else cc >= 7.0,
        "gpu_bf16": info.bf16 if info.bf16 is not None else (None if cc is None else cc >= 8.0),
        "gpu_tf32": info.tf32 if info.tf32 is not None else (None if cc is None else cc >= 8.0),
        "gpu_memory_total": info.memory_total,
    }


def _share_with(bits: list, mask: int) -> Optional[float]:
    known = [b for b in bits if b is not None]
    return sum(1 for b in known if int(b) & mask) / len(known) if known else None


def compute(record: RunRecord) -> dict[str, object]:
    gpu = _run_gpu(record)
    out: dict[str, object] = {"gpu_metrics_available": gpu is not None and bool(gpu.t)}
    out.update(_capability_facts(_info(record, gpu.index if gpu else 0)))
    if gpu is None or not gpu.t:
        return out
    window = steady_span(record)
    util = in_window(gpu.t, gpu.sm_util, window)
    power = median(in_window(gpu.t, gpu.power_w, window))
    limit = gpu.power_limit_w
    clock = median(in_window(gpu.t, gpu.sm_clock_mhz, window))
    throttles = in_window(gpu.t, gpu.throttle_reasons, window)
    mem = clean(gpu.mem_used)
    total = gpu.mem_total or out.get("gpu_memory_total")
    busy = sum(1 for s in record.samples.gpus
               if (median(in_window(s.t, s.sm_util, window)) or 0) > 10)
    out.update({
        "gpu_util_p50": percentile(util, 50),
        "gpu_util_p95": percentile(util, 95),
        "gpus_busy": busy,
        "power_w_median": power,
        "power_share_of_limit": ratio(power, limit),
        "sm_clock_share": ratio(clock, gpu.sm_clock_max_mhz),
        "temperature_max": max(clean(gpu.temperature_c), default=None),
        "throttle_thermal_share": _share_with(throttles, _THERMAL),
        "throttle_power_share": _share_with(throttles, _POWER),
        "gpu_memory_total": total,
        "gpu_memory_peak": max(mem) if mem else None,
        "gpu_memory_peak_share": ratio(max(mem), total) if mem else None,  # type: ignore[arg-type]
    })
    return out
