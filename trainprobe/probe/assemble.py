"""Build the RunRecord from what the child streamed, the workers wrote and the samplers saw.

Works on partial data by design: it is called every few seconds while the
script runs (so a killed parent still leaves a record) and once at the end.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import re
import statistics
from typing import Any, Optional

from ..machine import TorchFacts, torch_environment
from ..record import (
    Compute,
    ComputePeak,
    DeviceMemorySteps,
    FlopCount,
    Memory,
    MemoryCensus,
    MicroBatch,
    Environment,
    Invocation,
    Outcome,
    ProfilerSummary,
    RunRecord,
    Samples,
    Settings,
    Step,
    WorkerStats,
    Hotspots,
)
from .stepcodec import step_fields
from .hotspots import summarize_hotspots

__all__ = ["ChildReport", "EventFollower", "assemble_record", "read_worker_stats"]


@dataclasses.dataclass
class ChildReport:
    """Everything the child's event stream says, grouped."""

    steps: list[Step] = dataclasses.field(default_factory=list)
    micro_batches: list[MicroBatch] = dataclasses.field(default_factory=list)  # of the first steps (probe/clock.py)
    settings: Optional[Settings] = None
    profiler: Optional[ProfilerSummary] = None
    torch_env: dict[str, Any] = dataclasses.field(default_factory=dict)  # TorchFacts, read before the script
    data_paths: list[str] = dataclasses.field(default_factory=list)  # the datasets' roots, read at the end
    outcome: Optional[dict[str, Any]] = None
    python_window: dict[str, Any] = dataclasses.field(default_factory=dict)
    clock: dict[str, Any] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)
    windows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    stop_requested: Optional[str] = None
    census: dict[str, Any] = dataclasses.field(default_factory=dict)  # the counting step's FlopCount and MemoryCensus
    peak: dict[str, Any] = dataclasses.field(default_factory=dict)  # the ceiling and the memory limit
    device_memory: list[list[int]] = dataclasses.field(default_factory=list)  # per steady step on a GPU
    memory_limit: dict[str, Any] = dataclasses.field(default_factory=dict)  # read when the count began
    largest_input: dict[str, Any] = dataclasses.field(default_factory=dict)  # the last (largest) one streamed
    started: bool = False
    script_ended: Optional[float] = None


class EventFollower:
    """Reads the child's event stream incrementally (the parent polls it a few times a second)."""

    def __init__(self, events_path: str) -> None:
        self.path = events_path
        self.offset = 0
        self.report = ChildReport()

    def poll(self) -> ChildReport:
        try:
            with open(self.path, encoding="utf-8") as fh:
                fh.seek(self.offset)
                while True:
                    line = fh.readline()
                    if not line.endswith("\n"):
                        break  # torn or empty: read it again next time
                    self.offset = fh.tell()
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(event, dict):
                        _apply(self.report, event)
        except OSError:
            pass
        return self.report


def _apply(report: ChildReport, event: dict[str, Any]) -> None:
    kind = event.pop("type", None)
    if kind == "step":
        report.steps.append(Step.from_dict(step_fields(event)))
    elif kind == "micro":
        try:
            report.micro_batches.append(MicroBatch(*event["v"]))
        except (KeyError, TypeError):  # not a micro-batch this version writes: the steps stand without it
            pass
    elif kind == "settings":
        report.settings = Settings.from_dict(event.get("settings", {}))
    elif kind == "profiler":
        report.profiler = ProfilerSummary.from_dict(event.get("summary", {}))
    elif kind == "torch_env":
        report.torch_env = event
    elif kind == "data_paths":
        report.data_paths = [str(p) for p in event.get("paths", [])]
    elif kind == "outcome":
        report.outcome = event
    elif kind == "python_window":
        report.python_window = event
    elif kind == "clock":
        report.clock = event
    elif kind == "note":
        report.notes.append(str(event.get("text", "")))
    elif kind == "window":
        report.windows.append(event)
    elif kind == "census":
        report.census = event
    elif kind == "peak":
        report.peak = event
    elif kind == "memory_limit":
        report.memory_limit = event.get("limit") if isinstance(event.get("limit"), dict) else {}
    elif kind == "largest_input":
        report.largest_input = event
    elif kind == "device_memory":
        values = event.get("v")
        if isinstance(values, list) and len(values) == 4:
            report.device_memory.append(values)
    elif kind == "stop_requested":
        report.stop_requested = event.get("reason")
    elif kind == "started":
        report.started = True
    elif kind == "script_ended":
        report.script_ended = event.get("t")


def _last_worker_lines(out_dir: str) -> list[dict]:
    """The last complete line of each worker's figures (they are cumulative)."""
    lines = []
    for path in sorted(glob.glob(os.path.join(out_dir, "workers", "*.jsonl"))):
        last = None
        try:
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    if line.endswith("\n"):
                        try:
                            last = json.loads(line)
                        except ValueError:
                            pass
        except OSError:
            continue
        if last:
            lines.append(last)
    return lines


def read_worker_stats(out_dir: str, lines: Optional[list[dict]] = None) -> tuple[WorkerStats, ...]:
    stats = [WorkerStats.from_dict(d) for d in (lines if lines is not None else _last_worker_lines(out_dir))]
    return tuple(sorted(stats, key=lambda s: (s.loader_id, s.worker_id, s.pid)))


def _environment(base: Environment, torch_env: dict[str, Any]) -> Environment:
    """The parent's Environment with the child's torch facts (the fields ``check`` fills the same way)."""
    if not torch_env:
        return base
    fields = torch_environment(TorchFacts.from_dict(torch_env))
    return dataclasses.replace(base, **{k: v for k, v in fields.items() if v is not None})


def _step_noise_note(steps: list[Step]) -> Optional[str]:
    """A note when the steady steps (facts/window.py, the one definition of them) varied a lot."""
    from ..facts.window import MIN_STEADY_STEPS, steady_steps

    steady = [s.duration for s in steady_steps(RunRecord(steps=tuple(steps)))]
    if len(steady) < MIN_STEADY_STEPS:
        return None
    median = statistics.median(steady)
    if median <= 0:
        return None
    q = statistics.quantiles(steady, n=10, method="inclusive")  # "exclusive" extrapolates below the fastest step
    spread = (q[-1] - q[0]) / median
    if spread > 1.0:
        return (f"step times varied a lot in the measured window (p10 {q[0]*1e3:.1f} ms, p90 {q[-1]*1e3:.1f} ms, "
                f"median {median*1e3:.1f} ms): the machine may be busy with other work, so treat small "
                "differences with care")
    return None


def _with_gpu_busy(steps: list, profiler: Optional[ProfilerSummary]) -> tuple:
    """The profiled steps with their GPU-busy time from the profiler window's device timeline (the
    hooks time the host; only the profile sees the device)."""
    busy = profiler.step_gpu_busy if profiler is not None else {}
    if not busy:
        return tuple(steps)
    return tuple(dataclasses.replace(s, gpu_busy=busy[str(s.index)])
                 if s.gpu_busy is None and str(s.index) in busy else s for s in steps)


def assemble_record(
    *,
    invocation: Invocation,
    environment: Environment,
    child: ChildReport,
    samples: Samples,
    outcome: Outcome,
    out_dir: str,
    user_dirs: tuple[str, ...],
    final: bool,
    extra_notes: tuple[str, ...] = (),
) -> RunRecord:
    lines = _last_worker_lines(out_dir)
    workers = read_worker_stats(out_dir, lines)
    hotspots = Hotspots()
    if final:
        framework = child.settings.framework if child.settings is not None else None
        hotspots = summarize_hotspots(out_dir, child.python_window, user_dirs,
                                      framework.name if framework is not None else "",
                                      child.settings.loop_at if child.settings is not None else None)
        profiled = sum(float(d.get("profiled_seconds") or 0.0) for d in lines)
        hotspots = dataclasses.replace(hotspots, worker_window=profiled)
    notes = list(extra_notes) + child.notes
    noise = _step_noise_note(child.steps)
    if noise:
        notes.append(noise)
    note = _unit_note(child.clock.get("mode") or (child.settings.step_boundary if child.settings else None),
                      child.settings) if child.steps else None
    if note:
        notes.append(note)
    return RunRecord(
        invocation=invocation,
        environment=_environment(environment, child.torch_env),
        settings=child.settings or Settings(),
        steps=_with_gpu_busy(child.steps, child.profiler),
        profiler=child.profiler or ProfilerSummary(),
        hotspots=hotspots,
        workers=workers,
        samples=samples,
        outcome=outcome,
        notes=tuple(notes),
        compute=_compute(child),
        memory=_memory(child, samples, outcome),
        micro_batches=tuple(child.micro_batches),
    )


def _compute(child: ChildReport) -> Compute:
    flops = FlopCount.from_dict(child.census["flops"]) if isinstance(child.census.get("flops"), dict) else FlopCount()
    peak = ComputePeak.from_dict(child.peak["peak"]) if isinstance(child.peak.get("peak"), dict) else ComputePeak()
    return Compute(flops=flops, peak=peak)


def _memory(child: ChildReport, samples: Samples, outcome: Outcome) -> Memory:
    census = (MemoryCensus.from_dict(child.census["memory"]) if isinstance(child.census.get("memory"), dict)
              else MemoryCensus())
    rows = child.device_memory
    device_steps = DeviceMemorySteps(step=tuple(r[0] for r in rows), allocated_peak=tuple(r[1] for r in rows),
                                     reserved_peak=tuple(r[2] for r in rows), allocated_end=tuple(r[3] for r in rows))
    # The end's reading, else the one made when the count began (a run the kernel killed has no end).
    limit = child.peak.get("limit") if isinstance(child.peak.get("limit"), dict) else child.memory_limit
    largest = child.largest_input
    return Memory(census=census, device_steps=device_steps, limit=limit.get("limit"),
                  limit_source=limit.get("source"), free_at_start=free_at_start(samples, limit.get("limit")),
                  failed_request=failed_request(outcome), largest_input_shape=largest.get("shape"),
                  largest_input_elements=largest.get("elements"), largest_input_step=largest.get("step"))


def free_at_start(samples: Samples, limit: Optional[int]) -> Optional[int]:
    """Bytes free when the run started, from the samplers' first readings: the GPU's memory less what
    was in use on it; else the machine's available memory, within the limit."""
    for gpu in samples.gpus:
        used = next((u for u in gpu.mem_used if u is not None), None)
        if gpu.mem_total and used is not None:
            free = max(0, int(gpu.mem_total) - int(used))
            return min(free, int(limit)) if limit else free  # a process held to a fraction of the card
    available = samples.host.mem_available[0] if samples.host.mem_available else None
    if available is None:
        return None
    return min(int(available), int(limit)) if limit else int(available)


_REQUEST = re.compile(r"(?:Tried to allocate|you tried to allocate)\s+([\d.]+)\s*(bytes|[KMGT]i?B)?", re.I)
_UNITS = {"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
          "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}


def failed_request(outcome: Outcome) -> Optional[int]:
    """The size the failing allocation asked for, as its error gives it (CUDA: "Tried to allocate
    2.00 GiB"; the CPU allocator: "you tried to allocate 123 bytes")."""
    text = outcome.exception_message or ""
    match = _REQUEST.search(text) if outcome.oom or "allocate" in text else None
    if not match:
        return None
    unit = (match.group(2) or "bytes").lower()
    return int(float(match.group(1)) * _UNITS.get(unit, 1))


def _unit_note(unit: Optional[str], settings: Optional[Settings]) -> Optional[str]:
    """How iterations were told apart, when it was not the usual way (a DataLoader batch each)."""
    compiled = settings is not None and settings.compiled
    if unit == "fetch" and compiled and settings is not None and settings.optimizer_steps == 0:
        # A compiled optimizer step runs without its hooks: only the graph's own code runs.
        return ("no optimizer.step() was seen outside compiled code (an optimizer step inside torch.compile runs "
                "without trainprobe's hooks), so iterations were told apart by their DataLoader batches and the "
                "update's time counts as the step's other part")
    if unit == "optimizer":
        return ("no DataLoader batch was fetched in each iteration (batches made by hand), so an iteration ends "
                "with its last optimizer step, and its samples are the largest batch a training forward took in "
                "it (the first dimension of the model's input)")
    if unit == "backward":
        why = ("an optimizer step inside torch.compile runs without trainprobe's hooks" if compiled
               else "a hand-written update loop")
        return (f"no optimizer.step() and no DataLoader batch were seen ({why}), so iterations were told apart by "
                "their backward() calls, and their samples are the largest batch a training forward took (the "
                "first dimension of the model's input)")
    if unit == "batch":
        return "no backward() was seen, so each DataLoader batch is a step (an inference loop?)"
    if unit == "loader":
        return ("no backward(), optimizer.step() or nn.Module forward was seen (an update written by hand on bare "
                "tensors?), so an iteration runs from one batch of the DataLoader it begins with to the next; "
                "batches of other loaders in between are part of it")
    return None
