"""Summarize a torch.profiler window into the record's ProfilerSummary.

What ``torch.utils.bottleneck`` compared (total CPU vs CUDA time, top ops),
plus what the rules need: top-level ops per step (dispatch pressure), kernel
launches, host/device copies and whether they were pageable, synchronizations,
GPU idle time, the share of time in matmuls and convolutions.

All times here are seconds; torch reports microseconds.
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Optional

from ..record import Availability, OpStat, ProfilerSummary

__all__ = ["summarize_profile"]

_US = 1e-6
_TOP = 15
_LAUNCH_NAMES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx")
_SYNC_OPS = {
    "aten::_local_scalar_dense": "item/tolist",  # .item(), .tolist(), bool(tensor), print
    "cudaStreamSynchronize": "stream sync",
    "cudaDeviceSynchronize": "device sync",
    "cudaEventSynchronize": "event sync",
}
_MATMUL_CONV = ("conv", "addmm", "aten::mm", "bmm", "matmul", "linear", "gemm", "cutlass", "xmma", "cudnn")


# Ops that make a new tensor when called straight from Python (torch.tensor(...) is lift_fresh;
# aten::empty is left out: it is also the first half of torch.tensor and of most factories).
_CREATION_OPS = frozenset({
    "aten::lift_fresh", "aten::scalar_tensor", "aten::zeros", "aten::ones", "aten::full",
    "aten::randn", "aten::rand", "aten::randint", "aten::arange", "aten::linspace", "aten::eye",
})


_LOADER = ("enumerate(DataLoader)",)
_PHASE_RANGE = "trainprobe::"  # the step's phases, as the clock marks them in the trace (clock.PhaseRanges)

# Ops that do (almost) no arithmetic: their self time is what calling an op costs here (Python
# binding, dispatcher, autograd bookkeeping).
_CHEAP_OPS = frozenset({
    "aten::view", "aten::t", "aten::transpose", "aten::as_strided", "aten::expand", "aten::reshape",
    "aten::_reshape_alias", "aten::unsqueeze", "aten::squeeze", "aten::permute", "aten::select",
    "aten::slice", "aten::detach", "aten::alias", "aten::_unsafe_view", "aten::empty", "aten::resolve_conj",
    "aten::resolve_neg", "aten::result_type",
})


def _phase_of(evt: Any) -> str:
    """The step phase an op ran in: its innermost trainprobe range, else the loop's own code."""
    parent = evt.cpu_parent
    while parent is not None:
        if parent.name.startswith(_PHASE_RANGE):
            return parent.name[len(_PHASE_RANGE):]
        parent = parent.cpu_parent
    return "other"


def _op_time_by_phase(ops: list[Any], steps: int) -> dict[str, float]:
    """Self CPU seconds per step of the ops in each phase. An op nested in another counts once (its
    own self time), in the phase it ran in; a closure's ops outside its forward are the loop's code."""
    if not any(_has_ancestor(e, (_PHASE_RANGE,)) for e in ops[:2000]):
        return {}  # no phase ranges in this trace (a trace from elsewhere)
    out: dict[str, float] = {}
    for e in ops:
        phase = _phase_of(e)
        if phase == "closure":
            phase = "other"
        out[phase] = out.get(phase, 0.0) + e.self_cpu_time_total * _US
    return {k: v / steps for k, v in out.items()}


_SMALL_OP = 10e-6  # an op whose own time is below this is mostly its fixed cost (dispatch, setup)


def _small_op_time_share(ops: list[Any]) -> Optional[float]:
    """Share of the ops' self CPU time spent in ops each shorter than _SMALL_OP: the time a fused
    or batched version would mostly save. A few large matmuls among many tiny ops keep it low."""
    times = [e.self_cpu_time_total * _US for e in ops]
    total = sum(times)
    return sum(t for t in times if t < _SMALL_OP) / total if total > 0 else None


def _median(values: list[float]) -> Optional[float]:
    if not values:
        return None
    values = sorted(values)
    return values[len(values) // 2]


def _has_ancestor(evt: Any, prefixes: tuple[str, ...]) -> bool:
    parent = evt.cpu_parent
    while parent is not None:
        if parent.name.startswith(prefixes):
            return True
        parent = parent.cpu_parent
    return False


def _inside_optimizer(evt: Any) -> bool:
    return _has_ancestor(evt, ("Optimizer.step", "Optimizer.zero_grad"))


def _is_cuda(evt: Any) -> bool:
    return "CUDA" in str(getattr(evt, "device_type", ""))


def _self_device(evt: Any) -> float:
    for name in ("self_device_time_total", "self_cuda_time_total"):
        value = getattr(evt, name, None)
        if value is not None:
            return float(value) * _US
    return 0.0


def _device_total(evt: Any) -> float:
    for name in ("device_time_total", "cuda_time_total"):
        value = getattr(evt, name, None)
        if value is not None:
            return float(value) * _US
    return 0.0


def _union_length(intervals: Iterable[tuple[float, float]]) -> float:
    total, end = 0.0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def _top(averages: list[Any], key, with_cuda: bool) -> tuple[OpStat, ...]:
    rows = sorted(averages, key=key, reverse=True)[:_TOP]
    return tuple(
        OpStat(
            name=a.key,
            calls=int(a.count),
            self_cpu=a.self_cpu_time_total * _US,
            cpu_total=a.cpu_time_total * _US,
            self_cuda=_self_device(a) if with_cuda else 0.0,
            cuda_total=_device_total(a) if with_cuda else 0.0,
        )
        for a in rows
        if key(a) > 0
    )


def _copies(events: list[Any], steps: int) -> dict[str, Optional[float]]:
    h2d = d2h = 0
    h2d_bytes = pageable = 0.0
    for evt in events:
        name = evt.name
        if not name.startswith("Memcpy"):
            continue
        if "HtoD" in name:
            h2d += 1
            size = float(getattr(evt, "bytes", 0) or 0)  # not every build records sizes
            h2d_bytes += size
            if "Pageable" in name:
                pageable += size or 1.0
        elif "DtoH" in name:
            d2h += 1
    return {
        "h2d_copies_per_step": h2d / steps,
        "h2d_bytes_per_step": h2d_bytes / steps if h2d_bytes else None,
        "h2d_pageable_bytes_per_step": pageable / steps if h2d else 0.0,
        "d2h_copies_per_step": d2h / steps,
    }


def summarize_profile(window: Any, with_cuda: bool, trace_path: Optional[str] = None) -> ProfilerSummary:
    """``window`` is a stopped ProfilerWindow. Never raises: failures become an unavailable summary."""
    started = time.monotonic()
    if window.profile is None:
        return ProfilerSummary(availability=Availability(False, window.error or "the profiler window never opened"))
    steps = window.steps
    if steps <= 0:
        return ProfilerSummary(availability=Availability(False, "the script ended before the profiler window closed"))
    try:
        events = list(window.profile.events())
        averages = list(window.profile.key_averages())
    except Exception as exc:
        return ProfilerSummary(availability=Availability(False, f"could not read the profile: {exc}"))

    cpu_events = [e for e in events if not _is_cuda(e)]
    # Ops the DataLoader runs in the main process (num_workers=0: the dataset and collate)
    # are data loading, not the training loop's dispatch: keep them out of op counts and syncs.
    loop_ops = [e for e in cpu_events if e.name.startswith("aten::") and not _has_ancestor(e, _LOADER)]
    kernels = [e for e in events if _is_cuda(e) and not e.name.startswith("Memcpy") and not e.name.startswith("Memset")]
    toplevel = [e for e in cpu_events if e.cpu_parent is None and e.name.startswith("aten::")]
    toplevel_cpu = sum(e.cpu_time_total for e in toplevel) * _US
    launches = sum(1 for e in cpu_events if e.name in _LAUNCH_NAMES)

    sync_counts: dict[str, float] = {}
    sync_time = 0.0
    for e in cpu_events:
        kind = _SYNC_OPS.get(e.name)
        if kind and _has_ancestor(e, _LOADER):
            kind = None  # .item() inside transforms: data loading, on the CPU anyway
        if kind:
            if _inside_optimizer(e):
                # Adam & co. call .item() on their step counters: torch's own, not the loop's.
                kind += " (optimizer)"
            else:
                sync_time += e.cpu_time_total * _US
            sync_counts[kind] = sync_counts.get(kind, 0.0) + 1.0
    sync_counts = {k: v / steps for k, v in sync_counts.items()}

    # Made from Python, not inside another op (a record_function range such as Optimizer.step
    # is not an op), and not by the optimizer itself.
    creations = sum(
        1 for e in cpu_events
        if e.name in _CREATION_OPS and (e.cpu_parent is None or not e.cpu_parent.name.startswith("aten::"))
        and not _has_ancestor(e, ("Optimizer.",) + _LOADER)  # torch's own, not the loop's
    )
    aten_ops = [e for e in cpu_events if e.name.startswith("aten::")]
    by_phase = _op_time_by_phase(aten_ops, steps)
    cheap = _median([e.self_cpu_time_total * _US for e in aten_ops if e.name in _CHEAP_OPS])
    cpu_total = sum(a.self_cpu_time_total for a in averages) * _US
    cuda_total = sum(_self_device(a) for a in averages) if with_cuda else 0.0

    heavy_basis = [(a.key, _self_device(a) if with_cuda and cuda_total > 0 else a.self_cpu_time_total * _US) for a in averages]
    basis_total = sum(v for _, v in heavy_basis)
    heavy = sum(v for k, v in heavy_basis if any(tag in k.lower() for tag in _MATMUL_CONV))
    conv_ops = sum(int(a.count) for a in averages if a.key in ("aten::convolution", "aten::conv2d", "aten::cudnn_convolution"))

    gpu_idle = None
    kernel_time = None
    if with_cuda and kernels and window.wall > 0:
        busy = _union_length((e.time_range.start * _US, e.time_range.end * _US) for e in kernels)
        span_start = min(e.time_range.start for e in events) * _US
        span_end = max(e.time_range.end for e in events) * _US
        span = max(span_end - span_start, 1e-9)
        gpu_idle = max(0.0, 1.0 - busy / span)
        kernel_time = sum(e.time_range.elapsed_us() for e in kernels) * _US / len(kernels)

    peak_alloc = peak_reserved = None
    if with_cuda:
        try:
            import torch

            peak_alloc = int(torch.cuda.max_memory_allocated())
            peak_reserved = int(torch.cuda.max_memory_reserved())
        except Exception:
            pass

    saved_trace = None
    if trace_path:
        try:
            window.profile.export_chrome_trace(trace_path)
            saved_trace = trace_path
        except Exception:
            saved_trace = None

    return ProfilerSummary(
        availability=Availability(True),
        activities=("CPU", "CUDA") if with_cuda else ("CPU",),
        steps=steps,
        wall=window.wall,
        cpu_total=cpu_total,
        cuda_total=cuda_total,
        ops_per_step=len(loop_ops) / steps,
        loop_op_time_per_step=sum(e.self_cpu_time_total for e in loop_ops) * _US / steps,
        toplevel_ops_per_step=len(toplevel) / steps,
        mean_toplevel_op_time=toplevel_cpu / len(toplevel) if toplevel else None,
        launches_per_step=launches / steps if with_cuda else None,
        kernels_per_step=len(kernels) / steps if with_cuda else None,
        mean_kernel_time=kernel_time,
        **(_copies(events, steps) if with_cuda else {}),
        syncs_per_step=sum(v for k, v in sync_counts.items() if "(optimizer)" not in k),
        tensor_creations_per_step=creations / steps,
        op_time_by_phase=by_phase,
        cheap_op_time=cheap,
        small_op_time_share=_small_op_time_share(loop_ops),
        sync_calls=sync_counts,
        sync_time_per_step=sync_time / steps,
        gpu_idle_share=gpu_idle,
        matmul_conv_share=heavy / basis_total if basis_total > 0 else None,
        conv_ops=conv_ops,
        peak_memory_allocated=peak_alloc,
        peak_memory_reserved=peak_reserved,
        top_cpu_ops=_top(averages, lambda a: a.self_cpu_time_total, with_cuda),
        top_cuda_ops=_top(averages, _self_device, with_cuda) if with_cuda else (),
        trace_path=saved_trace,
        processing_time=time.monotonic() - started,
    )
