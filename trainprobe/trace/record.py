"""Trace files -> RunRecords: one record per rank, from the trace alone.

What the trace shows goes into the record (the GPU from ``deviceProperties``, the rank from
``distributedInfo``, the steps and the profile from the events, the DataLoader's iterator class,
the optimizer's class from its ``Optimizer.step#...`` range, torch.compile's Triton kernels).
Everything else keeps the record's empty defaults, and facts/trace.py makes those unknown.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from ..version import __version__
from ..probe.peak import datasheet_peak
from ..record import (
    Compute, ComputePeak, FlopCount,Availability, Environment, GpuInfo, Invocation, LoaderSettings, OptimizerSettings, Outcome,
                      RunRecord, Samples, Settings)
from .collect import Collected, collect, merge
from .read import TraceMeta, TraceReader, find_traces
from .summarize import TraceDigest, digest

__all__ = ["TraceRun", "read_traces", "record_from_digest"]

# num_workers of a DataLoader whose iterator is the multi-process one: some, how many unknown.
UNKNOWN_WORKERS = -1
_NO_SAMPLES = ("GPU metrics unavailable: a trace file holds no NVML or host samples (utilization, power, clocks, "
               "cores); the GPU's busy and idle time come from its kernels instead")
_OPTIMIZER = re.compile(r"Optimizer\.step#(\w+)\.step")


@dataclass(frozen=True)
class TraceRun:
    """One rank's record, made from its trace files."""

    rank: Optional[int]
    files: tuple[Path, ...]
    record: RunRecord


def _rank_of(meta: TraceMeta) -> Optional[int]:
    info = meta.distributed_info or {}
    rank = info.get("rank")
    return int(rank) if isinstance(rank, (int, float)) else None


def read_traces(paths: Sequence[str | os.PathLike]) -> list[TraceRun]:
    """Every rank's record. Files of one rank (several profiling cycles) make one record; a file
    that cannot be read raises TraceError naming it. Each file is read once."""
    files = find_traces(paths)
    by_rank: dict[Optional[int], list[tuple[Path, Collected, TraceMeta]]] = {}
    for path in files:
        reader = TraceReader(path)
        collected = collect(reader.events())
        by_rank.setdefault(_rank_of(reader.meta), []).append((path, collected, reader.meta))
    runs = []
    for rank, parts in sorted(by_rank.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        paths_of_rank = [p for p, _, _ in parts]
        # Several cycles of one rank are read as one trace: their steps do not overlap.
        result = digest(merge([c for _, c, _ in parts]), ", ".join(str(p) for p in paths_of_rank))
        record = record_from_digest(result, parts[0][2], paths_of_rank)
        runs.append(TraceRun(rank=rank, files=tuple(paths_of_rank), record=record))
    return runs


def _gpus(meta: TraceMeta) -> tuple[GpuInfo, ...]:
    out = []
    for props in meta.device_properties:
        try:
            major, minor = props.get("computeMajor"), props.get("computeMinor")
            capability = f"{major}.{minor}" if major is not None else None
            cc = float(capability) if capability else None
            out.append(GpuInfo(index=int(props.get("id", len(out))), name=str(props.get("name", "")),
                               memory_total=props.get("totalGlobalMem"), compute_capability=capability,
                               bf16=None if cc is None else cc >= 8.0, tf32=None if cc is None else cc >= 8.0))
        except (TypeError, ValueError):
            continue
    return tuple(out)


def _settings(result: TraceDigest, meta: TraceMeta) -> Settings:
    summary = result.summary
    info = meta.distributed_info or {}
    world = info.get("world_size")
    loaders: tuple[LoaderSettings, ...] = ()
    if result.loader_iterator:
        # The iterator's class says whether batches come from worker processes; how many, it does not.
        single = "_SingleProcessDataLoaderIter" in result.loader_iterator
        loaders = (LoaderSettings(num_workers=0 if single else UNKNOWN_WORKERS, used_in_training=True,
                                  batches=sum(s.batches for s in result.steps)),)
    optimizers: tuple[OptimizerSettings, ...] = ()
    kernels = [k.name for k in summary.top_cuda_ops]
    opt_type = _optimizer_type(result)
    if opt_type:
        optimizers = (OptimizerSettings(type=opt_type, steps=len(result.steps)),)
    device = f"cuda:{result.device}" if result.device is not None else None
    return Settings(
        dataloaders=loaders, optimizers=optimizers,
        cuda_available=result.device is not None, cuda_used=result.device is not None,
        devices_used=(device,) if device else (),
        distributed=isinstance(world, int) and world > 1, world_size=world if isinstance(world, int) else None,
        compiled=any(k.startswith("triton") for k in kernels),
        step_boundary="trace", optimizer_steps=len(result.steps) if opt_type else 0,
        backward_calls=0, env_flags={})


def _optimizer_type(result: TraceDigest) -> Optional[str]:
    for name in result.optimizer_ranges:
        match = _OPTIMIZER.match(name)
        if match:
            return match.group(1)
    return None


def record_from_digest(result: TraceDigest, meta: TraceMeta, files: Sequence[Path]) -> RunRecord:
    gpus = _gpus(meta)
    summary = result.summary
    notes = list(result.notes)
    if meta.truncated:
        notes.append(f"{files[0]}: {meta.truncated}")
    status = "completed" if summary.availability.available else "not_started"
    reason = ("read from a torch.profiler trace" if summary.availability.available
              else f"the trace was cut off before its first whole step: {meta.truncated}" if meta.truncated
              else f"the trace could not be split into steps: {summary.availability.reason}")
    steps = result.steps
    return RunRecord(
        invocation=Invocation(
            command_line="trainprobe trace " + " ".join(str(f) for f in files),
            cwd=str(Path.cwd()), trainprobe_version=__version__,
            options={"source": "trace", "files": [str(f) for f in files],
                     "rank": _rank_of(meta), "trace_name": meta.trace_name,
                     # A file cut off (a partial copy, a full disk): what was read, and what lies past the cut is
                     # unknown (facts/trace.py: blank_absence).
                     **({"cut": meta.truncated} if meta.truncated else {})}),
        environment=Environment(cuda_available=bool(gpus) or result.device is not None, gpu_count=len(gpus),
                                gpus=gpus),
        settings=_settings(result, meta),
        steps=steps,
        profiler=summary,
        samples=Samples(gpu_availability=Availability(False, _NO_SAMPLES), host_availability=Availability(False, _NO_SAMPLES)),
        outcome=Outcome(status=status, reason=reason,
                        duration=sum(s.duration for s in steps)),
        notes=tuple(notes),
        compute=trace_compute(summary, gpus, result.device),
    )


def trace_compute(summary, gpus: tuple[GpuInfo, ...], device: Optional[int]) -> Compute:
    """The FLOPs a trace's shapes give (matrix products, per step) and the datasheet peak of the GPU that ran
    them, for the dtype most of its matrix kernels used; unknown (with why) where the trace cannot say."""
    name = next((g.name for g in gpus if device is not None and g.index == device), None) or \
        next((g.name for g in gpus), "")
    peak = datasheet_peak(name) if name else ComputePeak(
        availability=Availability(False, "peak unknown: the trace does not name its GPU"), source="datasheet")
    flops = summary.shape_flops_per_step
    if flops is None:
        why = ("the trace has no steps to count per" if not summary.availability.available else
               "the trace carries no input shapes for its matrix products (record it with record_shapes=True)")
        return Compute(flops=FlopCount(availability=Availability(False, why)), peak=peak)
    half = summary.half_precision_share
    dtype = "fp32" if half is None or half < 0.5 else ("bf16" if "bf16" in peak.flops_per_s else "fp16")
    return Compute(flops=FlopCount(availability=Availability(True), steps=summary.steps, flops=flops,
                                   by_dtype={dtype: flops}), peak=peak)

