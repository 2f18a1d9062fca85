"""A trace's events -> the record's ProfilerSummary and its steps.

Steps are the trace's ``ProfilerStep#N`` ranges (what ``prof.step()`` marks). The host's figures
(ops, launches, syncs, creations, the loop's op time by phase) count every thread's events inside
the steps, per step; the device's figures come from ``device.py``. Times in the trace are µs; the
summary's are seconds, as in the rest of the record.
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import dataclass
from typing import Iterable, Optional

from ..record import Availability, OpStat, ProfilerSummary, Step
from ..vocabulary import INNER_PHASE_NAMES, TIMED_PHASE_NAMES
from .classify import (KERNEL_LAUNCHES, SYNC_CALLS, SYNC_KIND, copy_direction, copy_pageable, half_precision,
                       is_communication, is_matmul_conv, on_tensor_cores)
from .collect import CPU_KINDS, GPU_KINDS, Collected, CpuThread
from .device import device_steps, main_device
from .intervals import Timeline
from .work import work_split
from .nesting import PARENT_IS_ATEN, PHASE_PREFIX, UNDER_LOADER, UNDER_OPTIMIZER, UNDER_SYNC, Nested, nest, \
    outermost_op

__all__ = ["TraceDigest", "digest"]

_US = 1e-6
_TOP = 15
_STEP, _LOADER, _OP, _RUNTIME = (CPU_KINDS.index(k) for k in ("step", "loader", "op", "runtime"))
_KERNEL, _MEMCPY = (GPU_KINDS.index(k) for k in ("kernel", "memcpy"))
_CREATION_OPS = frozenset({
    "aten::lift_fresh", "aten::scalar_tensor", "aten::zeros", "aten::ones", "aten::full",
    "aten::randn", "aten::rand", "aten::randint", "aten::arange", "aten::linspace", "aten::eye",
})
_CHEAP_OPS = frozenset({
    "aten::view", "aten::t", "aten::transpose", "aten::as_strided", "aten::expand", "aten::reshape",
    "aten::_reshape_alias", "aten::unsqueeze", "aten::squeeze", "aten::permute", "aten::select",
    "aten::slice", "aten::detach", "aten::alias", "aten::_unsafe_view", "aten::empty", "aten::resolve_conj",
    "aten::resolve_neg", "aten::result_type",
})
_CPU_MATMUL_CONV = ("conv", "addmm", "aten::mm", "bmm", "matmul", "linear", "gemm")
_SMALL_OP = 10.0  # µs: an op this short is mostly its fixed cost (dispatch, setup)
_STEP_NUMBER = re.compile(r"ProfilerStep#(\d+)")
_OPTIMIZER_STEP = "Optimizer.step"
# A trainprobe phase range -> the Step field it fills (the live probe's clock writes these): the
# step's timed phases, and those timed inside ``other`` (zero_grad), which the rest of the step holds.
_PHASE_FIELDS = TIMED_PHASE_NAMES + INNER_PHASE_NAMES


@dataclass(frozen=True)
class TraceDigest:
    summary: ProfilerSummary
    steps: tuple[Step, ...]
    device: Optional[int]  # the device that ran the most kernel time
    loader_iterator: Optional[str]  # the DataLoader iterator class the loop used, from its __next__ range
    optimizer_ranges: tuple[str, ...]  # names of the Optimizer.step#... ranges (the optimizer's class)
    main_thread: Optional[tuple[int, int]]
    notes: tuple[str, ...]


def _main_thread(collected: Collected) -> Optional[tuple[int, int]]:
    """The thread that holds the ProfilerStep ranges (else the one with the most ops)."""
    best, best_key = None, (-1, -1)
    for key, thread in collected.threads.items():
        steps = sum(1 for k in thread.kind if k == _STEP)
        ops = len(thread)
        if (steps, ops) > best_key:
            best, best_key = key, (steps, ops)
    return best


def _step_windows(thread: CpuThread, names: list[str]) -> list[tuple[int, float, float]]:
    out = []
    for i in range(len(thread)):
        if thread.kind[i] == _STEP:
            match = _STEP_NUMBER.match(names[thread.name[i]])
            out.append((int(match.group(1)) if match else len(out), thread.ts[i], thread.end[i]))
    out.sort(key=lambda s: s[1])
    return out


def _spans(thread: CpuThread, names: list[str], want) -> Timeline:
    return Timeline((thread.ts[i], thread.end[i]) for i in range(len(thread)) if want(i, names[thread.name[i]]))


def _median(values: list[float]) -> Optional[float]:
    return statistics.median(values) if values else None


def digest(collected: Collected, trace_path: Optional[str] = None) -> TraceDigest:
    started = time.monotonic()
    names = collected.names
    main = _main_thread(collected)
    notes: list[str] = []
    if main is None:
        return _empty("the trace holds no host events (no ops, no ProfilerStep ranges)", collected, trace_path)
    main_thread = collected.threads[main]
    windows = _step_windows(main_thread, names)
    if not windows:
        return _empty("the trace has no ProfilerStep#N ranges, so its steps cannot be told apart: record it with "
                      "torch.profiler.profile(schedule=...) and call prof.step() once per training step",
                      collected, trace_path)
    lo, hi = windows[0][1], windows[-1][2]
    n = len(windows)
    nested = {key: nest(thread, names, frozenset(SYNC_KIND)) for key, thread in collected.threads.items()}
    reads_device = {key: _with_runtime_below(thread, nested[key]) for key, thread in collected.threads.items()}

    h2d_calls, blocking = _copy_calls(collected)
    host = _host_figures(collected, nested, reads_device, lo, hi, n, blocking)
    loader = _spans(main_thread, names, lambda i, _name: main_thread.kind[i] == _LOADER)
    syncs = _spans(main_thread, names, lambda i, name: name in SYNC_CALLS
                   or (name == "aten::_local_scalar_dense" and i in reads_device[main])
                   or main_thread.correlation[i] in blocking)
    optimizer = _spans(main_thread, names, lambda i, name: name.startswith(_OPTIMIZER_STEP))
    copying = _spans(main_thread, names, lambda i, _name: main_thread.kind[i] == _RUNTIME
                     and main_thread.correlation[i] in h2d_calls)
    loader_iterator = next((names[main_thread.name[i]] for i in range(len(main_thread))
                            if main_thread.kind[i] == _LOADER), None)

    device = main_device(collected.gpu)
    calls = _runtime_calls(collected) if device is not None else {}
    steps_windows = [(a, b) for _, a, b in windows]
    dev = (device_steps(collected.gpu, names, device, steps_windows, calls, loader, syncs)
           if device is not None else None)
    gpu = _gpu_figures(collected, device, lo, hi, n, calls) if device is not None else {}

    work, work_notes = work_split(collected, nested, device, lo, hi, n)
    notes.extend(work_notes)
    phases = _phase_times(main_thread, nested[main], names, steps_windows)
    steps = []
    for k, (number, a, b) in enumerate(windows):
        duration = (b - a) * _US
        if phases is not None:
            fields = {f: phases[k].get(f, 0.0) * _US for f in _PHASE_FIELDS}
        else:
            # Without the probe's phase ranges a trace tells the DataLoader and the optimizer apart;
            # the rest of the step is the model's work, forward and backward together.
            data = loader.covered(a, b) * _US
            opt = optimizer.covered(a, b) * _US
            h2d = copying.covered(a, b) * _US
            fields = {"data_wait": data, "optimizer": opt, "h2d": h2d,
                      "forward": max(0.0, duration - data - opt - h2d)}
        timed = sum(v for f, v in fields.items() if f not in INNER_PHASE_NAMES)
        steps.append(Step(
            index=number, start=(a - lo) * _US, duration=duration, other=max(0.0, duration - timed),
            phase="profiled", boundary="trace", batches=1 if loader.covered(a, b) > 0 else 0,
            gpu_busy=dev.per_step_busy[k] * _US if dev is not None else None, updates=1, **fields))
    if phases is None:
        notes.append("A trace does not say where the forward ends and the backward begins: the step's time "
                     "outside the DataLoader, the host-to-device copy calls and the optimizer is shown as forward.")

    summary = ProfilerSummary(
        availability=Availability(True),
        activities=("CPU", "CUDA") if device is not None else ("CPU",),
        steps=n,
        wall=(hi - lo) * _US,
        **{**host, **gpu},
        **(_device_summary(dev, n) if dev is not None else {}),
        **work,
        op_time_by_phase=_op_time_by_phase(collected, nested, names, lo, hi, n),
        step_gpu_busy={str(s.index): s.gpu_busy for s in steps if s.gpu_busy is not None},
        source="trace",
        trace_path=trace_path,
        processing_time=time.monotonic() - started,
    )
    opt_names = tuple(sorted({names[main_thread.name[i]] for i in range(len(main_thread))
                              if names[main_thread.name[i]].startswith(_OPTIMIZER_STEP)}))
    return TraceDigest(summary=summary, steps=tuple(steps), device=device, loader_iterator=loader_iterator,
                       optimizer_ranges=opt_names, main_thread=main, notes=tuple(notes))


def _empty(reason: str, collected: Collected, trace_path: Optional[str]) -> TraceDigest:
    """No steps: no per-step figures; the kernels, the kinds and the shapes' FLOPs of the whole trace
    (as if it were one step) are still there to read, labelled so in the notes."""
    device = main_device(collected.gpu)
    everything = (float("-inf"), float("inf"))
    top = _top_kernels(collected, device, *everything) if device is not None else ()
    notes = [reason]
    work: dict = {}
    if collected.threads:
        nested = {key: nest(thread, collected.names, frozenset(SYNC_KIND)) for key, thread in collected.threads.items()}
        work, work_notes = work_split(collected, nested, device, *everything, 1)
        notes.extend(work_notes)
        notes.append("Without steps, the op kinds, the op table and the FLOPs from shapes cover the whole trace "
                     "(its figures 'per step' are for the whole trace).")
    return TraceDigest(
        summary=ProfilerSummary(availability=Availability(False, reason), source="trace", trace_path=trace_path,
                                top_cuda_ops=top, **work),
        steps=(), device=device, loader_iterator=None, optimizer_ranges=(), main_thread=None, notes=tuple(notes))


def _inside(thread: CpuThread, i: int, lo: float, hi: float) -> bool:
    return lo <= thread.ts[i] < hi


def _host_figures(collected: Collected, nested: dict, reads_device: dict, lo: float, hi: float, n: int,
                  blocking_calls: frozenset[int] = frozenset()) -> dict:
    """``reads_device``: per thread, the events with a runtime call under them; ``blocking_calls``:
    correlations of copy calls the host waited for (pageable device-to-host)."""
    names = collected.names
    with_device = len(collected.gpu) > 0
    ops_count = loop_count = toplevel = launches = creations = 0
    loop_time = toplevel_time = cpu_total = sync_time = 0.0
    small_time = 0.0
    # The loop's ops by step phase: how many, and the self time of those under _SMALL_OP (facts/ops.py counts
    # the model's phases' alone as its cost of calling ops).
    ops_by_phase: dict[str, float] = {}
    small_by_phase: dict[str, float] = {}
    phased = False
    cheap: list[float] = []
    sync_counts: dict[str, float] = {}
    sync_sites: dict[str, float] = {}
    by_name: dict[int, list[float]] = {}  # name -> [calls, self, total]
    for key, thread in collected.threads.items():
        nd: Nested = nested[key]
        reached_device = reads_device[key]
        for i in range(len(thread)):
            if not _inside(thread, i, lo, hi):
                continue
            kind, name_id = thread.kind[i], thread.name[i]
            name = names[name_id]
            flags = nd.flags[i]
            own = nd.self_time[i]
            if kind in (_OP, _RUNTIME):
                cpu_total += own
            if kind == _RUNTIME and name in KERNEL_LAUNCHES:
                launches += 1
            sync_kind = SYNC_KIND.get(name)
            if kind == _RUNTIME and thread.correlation[i] in blocking_calls:
                sync_kind = "blocking copy"  # cudaMemcpyAsync into pageable memory: the host waits
            if sync_kind == "item/tolist" and with_device and i not in reached_device:
                sync_kind = None  # .item() on a CPU tensor: nothing to wait for
            if sync_kind and not flags & UNDER_LOADER and not flags & UNDER_SYNC:
                if flags & UNDER_OPTIMIZER:
                    sync_kind += " (optimizer)"  # Adam's step counters: torch's own, not the loop's
                else:
                    sync_time += thread.end[i] - thread.ts[i]
                    site = outermost_op(thread, nd, names, i) or name
                    sync_sites[site] = sync_sites.get(site, 0.0) + 1.0
                sync_counts[sync_kind] = sync_counts.get(sync_kind, 0.0) + 1.0
            if kind != _OP or not name.startswith("aten::"):
                continue
            ops_count += 1
            row = by_name.setdefault(name_id, [0, 0.0, 0.0])
            row[0] += 1
            row[1] += own
            row[2] += thread.end[i] - thread.ts[i]
            if name in _CHEAP_OPS:
                cheap.append(own)
            if not flags & PARENT_IS_ATEN:
                toplevel += 1
                toplevel_time += thread.end[i] - thread.ts[i]
                if name in _CREATION_OPS and not flags & (UNDER_OPTIMIZER | UNDER_LOADER):
                    creations += 1
            if not flags & UNDER_LOADER:
                loop_count += 1
                loop_time += own
                phase = _phase_of(nd, names, i)
                phased = phased or nd.phase[i] >= 0
                ops_by_phase[phase] = ops_by_phase.get(phase, 0.0) + 1.0
                if own < _SMALL_OP:
                    small_time += own
                    small_by_phase[phase] = small_by_phase.get(phase, 0.0) + own * _US
    top_cpu = tuple(
        OpStat(name=names[k], calls=int(v[0]), self_cpu=v[1] * _US, cpu_total=v[2] * _US)
        for k, v in sorted(by_name.items(), key=lambda kv: kv[1][1], reverse=True)[:_TOP])
    heavy = sum(v[1] for k, v in by_name.items() if any(tag in names[k].lower() for tag in _CPU_MATMUL_CONV))
    op_total = sum(v[1] for v in by_name.values())
    return {
        "cpu_total": cpu_total * _US,
        # Without a device the matrix math's share is of the ops' own CPU time (a device run's comes
        # from its kernels and replaces these).
        "matmul_conv_share": heavy / op_total if op_total > 0 and not with_device else None,
        "fp32_matmul_conv_share": None,
        "ops_per_step": loop_count / n,
        "loop_op_time_per_step": loop_time * _US / n,
        "toplevel_ops_per_step": toplevel / n,
        "mean_toplevel_op_time": toplevel_time * _US / toplevel if toplevel else None,
        "launches_per_step": launches / n if launches else None,
        "syncs_per_step": sum(v for k, v in sync_counts.items() if "(optimizer)" not in k) / n,
        "sync_calls": {k: v / n for k, v in sync_counts.items()},
        "sync_sites": {k: v / n for k, v in sorted(sync_sites.items(), key=lambda kv: -kv[1])[:10]},
        "sync_time_per_step": sync_time * _US / n,
        "tensor_creations_per_step": creations / n,
        "cheap_op_time": _median(cheap) * _US if cheap else None,
        "small_op_time_share": small_time / loop_time if loop_time > 0 else None,
        "ops_by_phase": {k: v / n for k, v in ops_by_phase.items()} if phased else {},
        "small_op_time_by_phase": {k: v / n for k, v in small_by_phase.items()} if phased else {},
        "top_cpu_ops": top_cpu,
        "conv_ops": sum(int(v[0]) for k, v in by_name.items()
                        if names[k] in ("aten::convolution", "aten::conv2d", "aten::cudnn_convolution")),
    }


def _with_runtime_below(thread: CpuThread, nd: Nested) -> set[int]:
    """Events with a CUDA runtime call somewhere under them (an op that reached the device)."""
    out: set[int] = set()
    for i in range(len(thread)):
        if thread.kind[i] == _RUNTIME:
            p = nd.parent[i]
            while p >= 0 and p not in out:
                out.add(p)
                p = nd.parent[p]
    return out


def _copy_calls(collected: Collected) -> tuple[frozenset[int], frozenset[int]]:
    """Correlations of the host-to-device copies (their runtime calls are the host's copy time), and
    of the copies to pageable host memory (cudaMemcpyAsync returns only when they are done, so the
    host waits for them and for all the work queued before them)."""
    gpu, names = collected.gpu, collected.names
    h2d, blocking = set(), set()
    for i in range(len(gpu)):
        corr = gpu.correlation[i]
        if gpu.kind[i] != _MEMCPY or corr < 0:
            continue
        name = names[gpu.name[i]]
        direction = copy_direction(name)
        if direction == "h2d":
            h2d.add(corr)
        elif direction == "d2h" and copy_pageable(name):
            blocking.add(corr)
    return frozenset(h2d), frozenset(blocking)


def _runtime_calls(collected: Collected) -> dict[int, tuple[float, float]]:
    """correlation -> (start, end) of the host's runtime call that put that work on the device."""
    wanted = set(collected.gpu.correlation)
    wanted.discard(-1)
    out: dict[int, tuple[float, float]] = {}
    for thread in collected.threads.values():
        for i in range(len(thread)):
            corr = thread.correlation[i]
            if corr in wanted and thread.kind[i] == _RUNTIME:
                out[corr] = (thread.ts[i], thread.end[i])
    return out


def _gpu_figures(collected: Collected, device: int, lo: float, hi: float, n: int,
                 calls: dict[int, tuple[float, float]]) -> dict:
    """``calls``: correlation -> (start, end) of the runtime call that launched the work."""
    gpu, names = collected.gpu, collected.names
    kernel_times: list[float] = []
    by_class = {"compute": 0.0, "communication": 0.0, "memory": 0.0}
    heavy = heavy_tc = heavy_half = 0.0
    h2d = d2h = blocking = 0
    h2d_bytes = pageable = 0.0
    for i in range(len(gpu)):
        if gpu.device[i] != device or not lo <= gpu.ts[i] < hi:
            continue
        dur = gpu.end[i] - gpu.ts[i]
        name = names[gpu.name[i]]
        kind = gpu.kind[i]
        if kind == _KERNEL:
            kernel_times.append(dur)
            if is_communication(name):
                by_class["communication"] += dur
                continue
            by_class["compute"] += dur
            if is_matmul_conv(name):
                heavy += dur
                if on_tensor_cores(name):
                    heavy_tc += dur
                if half_precision(name):
                    heavy_half += dur
            continue
        by_class["memory"] += dur
        if kind != _MEMCPY:
            continue
        direction = copy_direction(name)
        size = float(gpu.nbytes[i]) if gpu.nbytes[i] >= 0 else 0.0
        if direction == "h2d":
            h2d += 1
            h2d_bytes += size
            if copy_pageable(name):
                pageable += size or 1.0
        elif direction == "d2h":
            d2h += 1
        call = calls.get(gpu.correlation[i])
        # The host waited for the copy when its call lasted until the copy was done.
        if call is not None and direction in ("h2d", "d2h") and call[1] >= gpu.end[i] - 1.0:
            blocking += 1
    kernels_total = by_class["compute"] + by_class["communication"]
    fp32_heavy = heavy - heavy_half
    compute = by_class["compute"]  # the shares of matrix math are of the compute kernels: AMP and TF32
    # speed those up; communication kernels they leave as they are
    return {
        "cuda_total": kernels_total * _US,
        "kernels_per_step": len(kernel_times) / n,
        "mean_kernel_time": sum(kernel_times) / len(kernel_times) * _US if kernel_times else None,
        "median_kernel_time": _median(kernel_times) * _US if kernel_times else None,
        "kernel_time_by_class": {k: v * _US / n for k, v in by_class.items()},
        "matmul_conv_share": heavy / compute if compute > 0 else None,
        "fp32_matmul_conv_share": fp32_heavy / compute if compute > 0 else None,
        "tensor_core_share": heavy_tc / heavy if heavy > 0 else None,
        "half_precision_share": heavy_half / heavy if heavy > 0 else None,
        "h2d_copies_per_step": h2d / n,
        "h2d_bytes_per_step": h2d_bytes / n if h2d_bytes else None,
        "h2d_pageable_bytes_per_step": pageable / n if h2d else 0.0,
        "d2h_copies_per_step": d2h / n,
        "blocking_copies_per_step": blocking / n,
        "top_cuda_ops": _top_kernels(collected, device, lo, hi),
    }


def _top_kernels(collected: Collected, device: int, lo: float, hi: float) -> tuple[OpStat, ...]:
    """The kernels that took the most device time (the trace's top CUDA "ops"), calls = launches."""
    gpu, names = collected.gpu, collected.names
    rows: dict[int, list[float]] = {}
    for i in range(len(gpu)):
        if gpu.device[i] == device and gpu.kind[i] == _KERNEL and lo <= gpu.ts[i] < hi:
            row = rows.setdefault(gpu.name[i], [0, 0.0])
            row[0] += 1
            row[1] += gpu.end[i] - gpu.ts[i]
    ranked = sorted(rows.items(), key=lambda kv: kv[1][1], reverse=True)[:_TOP]
    return tuple(OpStat(name=names[k], calls=int(v[0]), self_cuda=v[1] * _US, cuda_total=v[1] * _US)
                 for k, v in ranked)


def _device_summary(dev, n: int) -> dict:
    total = sum(dev.per_step_busy) + sum(dev.idle.values())
    span = total if total > 0 else 1.0
    return {
        "gpu_busy_per_step": dev.busy * _US / n,
        # A window's last range can hold no step (the profiler stopped before the next step's work), and
        # the first steps' kernels can run after their window: the median of what each step launched.
        "kernel_work_per_step": _median([t * _US for t in dev.per_step_launched if t > 0]),
        "gpu_idle_share": max(0.0, 1.0 - dev.busy / span),
        "gpu_idle_by_cause": {k: v * _US / n for k, v in dev.idle.items()},
        "device_time_by_class": {k: v * _US / n for k, v in dev.by_class.items()},
        "gpu_idle_at_step_boundaries": dev.boundary_idle * _US / n,
        "communication_overlap_share": (1.0 - dev.by_class["communication"] / dev.communication)
        if dev.communication > 0 else None,
    }


def _phase_times(thread: CpuThread, nd: Nested, names: list[str],
                 windows: list[tuple[float, float]]) -> Optional[list[dict[str, float]]]:
    """Per step, µs in each trainprobe phase range on the main thread (outermost ranges only);
    None when the trace has none (it was not recorded by trainprobe)."""
    spans = [(thread.ts[i], thread.end[i], names[thread.name[i]][len(PHASE_PREFIX):])
             for i in range(len(thread))
             if names[thread.name[i]].startswith(PHASE_PREFIX) and (nd.parent[i] < 0 or nd.phase[nd.parent[i]] < 0)]
    if not spans:
        return None
    out = []
    for a, b in windows:
        times: dict[str, float] = {}
        for s, e, phase in spans:
            if e <= a or s >= b:
                continue
            times[phase] = times.get(phase, 0.0) + min(e, b) - max(s, a)
        out.append(times)
    return out


def _phase_of(nd: Nested, names: list[str], i: int) -> str:
    """The trainprobe phase event ``i`` ran in: "other" outside any (the loop's own code), and a closure's."""
    phase_id = nd.phase[i]
    phase = names[phase_id][len(PHASE_PREFIX):] if phase_id >= 0 else "other"
    return "other" if phase == "closure" else phase


def _op_time_by_phase(collected: Collected, nested: dict, names: list[str], lo: float, hi: float,
                      n: int) -> dict[str, float]:
    """Self CPU seconds per step of aten ops in each trainprobe phase ("other": outside any)."""
    out: dict[str, float] = {}
    seen = False
    for key, thread in collected.threads.items():
        nd = nested[key]
        for i in range(len(thread)):
            if thread.kind[i] != _OP or not _inside(thread, i, lo, hi):
                continue
            name = names[thread.name[i]]
            if not name.startswith("aten::"):
                continue
            phase = _phase_of(nd, names, i)
            seen = seen or nd.phase[i] >= 0
            out[phase] = out.get(phase, 0.0) + nd.self_time[i] * _US
    return {k: v / n for k, v in out.items()} if seen else {}


def digest_events(events: Iterable, trace_path: Optional[str] = None) -> TraceDigest:
    from .collect import collect

    return digest(collect(events), trace_path)
