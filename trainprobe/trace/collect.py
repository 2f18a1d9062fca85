"""One pass over a trace's events into compact columns, the only copy of the trace kept in memory.

A trace holds millions of events; a tuple per event would cost more memory than the file. Each
event is kept as a few numbers in typed arrays (``array``), its name as an index into one table
of distinct names, so memory grows by about 30 bytes an event whatever the file's size.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Iterable

from .flops import op_flops

__all__ = ["NO_SHAPES", "Columns", "CpuThread", "Collected", "collect"]

# CPU event kinds kept (the reader's kinds), by a small code.
CPU_KINDS = ("op", "annotation", "step", "loader", "runtime", "python")
GPU_KINDS = ("kernel", "memcpy", "memset")
_CPU_CODE = {k: i for i, k in enumerate(CPU_KINDS)}
_GPU_CODE = {k: i for i, k in enumerate(GPU_KINDS)}
_NAN = float("nan")
NO_SHAPES = -1.0  # a shape op's FLOPs when the trace recorded no shapes for it


@dataclass
class CpuThread:
    """One host thread's events: start and end (µs), name index, kind code, correlation (-1: none)."""

    ts: array = field(default_factory=lambda: array("d"))
    end: array = field(default_factory=lambda: array("d"))
    name: array = field(default_factory=lambda: array("l"))
    kind: array = field(default_factory=lambda: array("b"))
    correlation: array = field(default_factory=lambda: array("q"))
    # Sparse: the ops that carry an autograd sequence number (index, number), and the few ops whose
    # FLOPs the recorded shapes give (index, FLOPs, bytes; NaN where the shapes do not say, NO_SHAPES
    # where none were recorded): worked out here, as the events stream by, so that no shape is held.
    seq_at: array = field(default_factory=lambda: array("l"))
    seq: array = field(default_factory=lambda: array("q"))
    shape_at: array = field(default_factory=lambda: array("l"))
    flops: array = field(default_factory=lambda: array("d"))
    nbytes: array = field(default_factory=lambda: array("d"))

    def __len__(self) -> int:
        return len(self.ts)


@dataclass
class Columns:
    """The device's events: start and end (µs), device, stream, name index, kind code,
    correlation (-1: none) and bytes (-1: none)."""

    ts: array = field(default_factory=lambda: array("d"))
    end: array = field(default_factory=lambda: array("d"))
    device: array = field(default_factory=lambda: array("l"))
    stream: array = field(default_factory=lambda: array("l"))
    name: array = field(default_factory=lambda: array("l"))
    kind: array = field(default_factory=lambda: array("b"))
    correlation: array = field(default_factory=lambda: array("q"))
    nbytes: array = field(default_factory=lambda: array("q"))

    def __len__(self) -> int:
        return len(self.ts)


@dataclass
class Collected:
    names: list[str]
    threads: dict[tuple[int, int], CpuThread]  # (pid, tid) -> its events
    gpu: Columns


def collect(events: Iterable) -> Collected:
    """``events`` are the reader's TraceEvents (kind, name, ts, dur, pid, tid, correlation, external_id,
    nbytes)."""
    names: list[str] = []
    index: dict[str, int] = {}
    threads: dict[tuple[int, int], CpuThread] = {}
    gpu = Columns()
    cpu_code, gpu_code = _CPU_CODE, _GPU_CODE
    for e in events:
        kind = e.kind
        name_id = index.get(e.name)
        if name_id is None:
            name_id = index[e.name] = len(names)
            names.append(e.name)
        corr = e.correlation if e.correlation is not None else -1
        code = gpu_code.get(kind)
        if code is not None:
            gpu.ts.append(e.ts)
            gpu.end.append(e.ts + e.dur)
            gpu.device.append(e.pid)
            gpu.stream.append(e.tid)
            gpu.name.append(name_id)
            gpu.kind.append(code)
            gpu.correlation.append(corr)
            gpu.nbytes.append(e.nbytes if e.nbytes is not None else -1)
            continue
        code = cpu_code.get(kind)
        if code is None:
            continue
        thread = threads.get((e.pid, e.tid))
        if thread is None:
            thread = threads[(e.pid, e.tid)] = CpuThread()
        thread.ts.append(e.ts)
        thread.end.append(e.ts + e.dur)
        thread.name.append(name_id)
        thread.kind.append(code)
        thread.correlation.append(corr)
        if e.seq is not None:
            thread.seq_at.append(len(thread.ts) - 1)
            thread.seq.append(e.seq)
        if e.shapes is not None:
            counted = op_flops(e.name, e.shapes) if e.shapes else None
            thread.shape_at.append(len(thread.ts) - 1)
            thread.flops.append(NO_SHAPES if not e.shapes else _NAN if counted is None else counted[0])
            thread.nbytes.append(_NAN if counted is None or counted[1] is None else counted[1])
    return Collected(names=names, threads=threads, gpu=gpu)


def merge(parts: list[Collected]) -> Collected:
    """Several files of one process (profiling cycles) as one: names re-indexed into one table."""
    if len(parts) == 1:
        return parts[0]
    names: list[str] = []
    index: dict[str, int] = {}

    def remap(part: Collected) -> list[int]:
        out = []
        for text in part.names:
            if text not in index:
                index[text] = len(names)
                names.append(text)
            out.append(index[text])
        return out

    threads: dict[tuple[int, int], CpuThread] = {}
    gpu = Columns()
    for part in parts:
        ids = remap(part)
        for key, thread in part.threads.items():
            into = threads.setdefault(key, CpuThread())
            offset = len(into)
            into.seq_at.extend(offset + i for i in thread.seq_at)
            into.seq.extend(thread.seq)
            into.shape_at.extend(offset + i for i in thread.shape_at)
            into.flops.extend(thread.flops)
            into.nbytes.extend(thread.nbytes)
            into.ts.extend(thread.ts)
            into.end.extend(thread.end)
            into.name.extend(ids[i] for i in thread.name)
            into.kind.extend(thread.kind)
            into.correlation.extend(thread.correlation)
        g = part.gpu
        for column in ("ts", "end", "device", "stream", "kind", "correlation", "nbytes"):
            getattr(gpu, column).extend(getattr(g, column))
        gpu.name.extend(ids[i] for i in g.name)
    return Collected(names=names, threads=threads, gpu=gpu)
