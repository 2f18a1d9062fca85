"""The hardware's ceiling for the run's matrix products: measured on a CPU, from the datasheet on a GPU.

A CPU's peak depends on its model, its vector units, the threads torch may use and the load
around it: no table can hold it, so it is measured on the spot, after the script's steps (never
inside a measured window), with the run's own torch thread count: the best of repeated n×n×n
products in each dtype the run used, and a large copy for memory bandwidth. It takes about two
seconds. Each product runs twice, as ``torch.mm`` and as the same product written as a 1×1
convolution in channels-last memory: torch hands the first to its BLAS (MKL) and the second to
oneDNN, and on some CPUs only one of them uses the widest vector units. On the 2-core AMD EPYC
(Zen 5) dev VM, MKL's fp32 product ran at 219 GFLOP/s and oneDNN's at 431; the model's
convolutions and LSTMs run on oneDNN, and eight recorded runs reported more FLOPs per second than
the MKL figure allowed. The faster of the two is the ceiling. The figures are best-of, since other
programs' load only ever slows a repetition down; the record keeps when it ran, so the facts can
say whether other programs loaded the machine meanwhile (``compute_peak_outside_load``). A GPU's peak is its datasheet figure
(``readiness/peaks.py``), for the dtype its matrix products ran in; a GPU not in the table gets
"peak unknown", never a guess.

``TRAINPROBE_CPU_PEAK_FILE`` names a file that keeps one measurement for the runs after it (a test
suite diagnoses a hundred scripts on one machine): a run on the same CPU model with the same torch
thread count and dtypes reuses it, with no time of its own (so no outside load is judged for it),
and the first one writes it.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Optional

from ..machine import get_cpu_model
from ..readiness.peaks import gpu_peak
from ..record_base import Availability
from ..record_compute import ComputePeak

__all__ = ["measure_peak", "datasheet_peak", "MATMUL_SIZE", "PEAK_FILE_ENV"]

PEAK_FILE_ENV = "TRAINPROBE_CPU_PEAK_FILE"

MATMUL_SIZE = 1024  # 2.1 GFLOP a product: ~10 ms at a CPU's 200 GFLOP/s, long enough to time well
_SECONDS_PER_DTYPE = 0.35
_MAX_REPEATS = 40
_COPY_BYTES = 64 << 20
_TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


def datasheet_peak(name: str) -> ComputePeak:
    """The datasheet ceiling of the GPU named ``name``; unavailable (naming it) when not in the table."""
    peak = gpu_peak(name)
    if peak is None:
        return ComputePeak(availability=Availability(False, f"peak unknown: {name or 'this GPU'} is not in "
                                                            "trainprobe's datasheet table"),
                           source="datasheet", device=name)
    return ComputePeak(availability=Availability(True), source="datasheet", device=name,
                       flops_per_s=peak.flops_per_s,
                       memory_bytes_per_s=peak.memory_tb_per_s * 1e12 if peak.memory_tb_per_s else None,
                       reference=peak.reference)


def _best_seconds(product: Any) -> float:
    """Seconds of the fastest of repeated calls of ``product``."""
    for _ in range(2):  # first calls pick kernels and fault pages in
        product()
    best = float("inf")
    deadline = time.perf_counter() + _SECONDS_PER_DTYPE
    for _ in range(_MAX_REPEATS):
        start = time.perf_counter()
        product()
        best = min(best, time.perf_counter() - start)
        if time.perf_counter() > deadline:
            break
    return best


def _best_matmul(torch: Any, dtype: Any, n: int) -> float:
    """FLOP/s of the fastest of repeated n×n×n products, through the BLAS (``torch.mm``) or through oneDNN
    (the same product as a 1×1 convolution of n channels over n pixels, channels-last), whichever is faster."""
    a = torch.randn(n, n).to(dtype)
    b = torch.randn(n, n).to(dtype)
    best = _best_seconds(lambda: torch.mm(a, b))
    side = int(n ** 0.5)
    if side * side == n:
        try:
            pixels = torch.randn(1, n, side, side).to(dtype).contiguous(memory_format=torch.channels_last)
            weight = torch.randn(n, n, 1, 1).to(dtype).contiguous(memory_format=torch.channels_last)
            conv2d = torch.nn.functional.conv2d
            best = min(best, _best_seconds(lambda: conv2d(pixels, weight)))
        except Exception:  # pylint: disable=broad-except  # a build without oneDNN: the BLAS figure stands
            pass
    return 2.0 * n * n * n / best


def _best_copy(torch: Any) -> float:
    """Bytes/s of the fastest of a few copies of a buffer larger than the caches (read + write)."""
    src = torch.empty(_COPY_BYTES // 4, dtype=torch.float32).fill_(1.0)
    dst = torch.empty_like(src)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        dst.copy_(src)
        best = min(best, time.perf_counter() - start)
    return 2.0 * _COPY_BYTES / best


def measure_peak(torch: Any, cuda: bool, dtypes: tuple[str, ...], t0: float) -> ComputePeak:
    """The ceiling for this run: the datasheet's on a GPU, a measurement on a CPU (``t0``: the
    record's time base, to say when it ran)."""
    if cuda:
        try:
            name = torch.cuda.get_device_name(torch.cuda.current_device())
        except Exception as exc:  # pylint: disable=broad-except
            return ComputePeak(availability=Availability(False, f"the GPU's name could not be read: {exc}"),
                               source="datasheet")
        return datasheet_peak(name)
    kept = _kept(torch, dtypes)
    if kept is not None:
        return kept
    started = time.monotonic()
    flops: dict[str, float] = {}
    for key in dtypes:
        dtype = getattr(torch, _TORCH_DTYPES.get(key, ""), None)
        if dtype is None:
            continue
        try:
            flops[key] = _best_matmul(torch, dtype, MATMUL_SIZE)
        except Exception:  # pylint: disable=broad-except  # a dtype this CPU build cannot multiply
            continue
    try:
        bandwidth = _best_copy(torch)
    except Exception:  # pylint: disable=broad-except
        bandwidth = None
    duration = time.monotonic() - started
    if not flops:
        return ComputePeak(availability=Availability(False, "the matmul benchmark could not run"), source="measured")
    peak = ComputePeak(availability=Availability(True), source="measured", device=get_cpu_model() or "CPU",
                       flops_per_s=flops, memory_bytes_per_s=bandwidth, threads=int(torch.get_num_threads()),
                       started=started - t0, duration=duration, matmul_size=MATMUL_SIZE)
    _keep(peak)
    return peak


def _kept(torch: Any, dtypes: tuple[str, ...]) -> Optional[ComputePeak]:
    """The measurement ``TRAINPROBE_CPU_PEAK_FILE`` holds, when it fits this run; else None."""
    path = os.environ.get(PEAK_FILE_ENV)
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        peak = ComputePeak(availability=Availability(True), source="measured", device=data["device"],
                           flops_per_s={k: float(v) for k, v in data["flops_per_s"].items()},
                           memory_bytes_per_s=data.get("memory_bytes_per_s"), threads=int(data["threads"]),
                           matmul_size=data.get("matmul_size"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    fits = (peak.device == (get_cpu_model() or "CPU") and peak.threads == int(torch.get_num_threads())
            and all(d in peak.flops_per_s for d in dtypes if d in _TORCH_DTYPES))
    return peak if fits else None


def _keep(peak: ComputePeak) -> None:
    path = os.environ.get(PEAK_FILE_ENV)
    if not path:
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"device": peak.device, "flops_per_s": peak.flops_per_s, "threads": peak.threads,
                       "memory_bytes_per_s": peak.memory_bytes_per_s, "matmul_size": peak.matmul_size}, f)
    except OSError:
        pass  # the next run measures again
