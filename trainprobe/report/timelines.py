"""The report's timelines: which series go on which chart, on one shared time axis.

Every chart gets the run's phases shaded and its step boundaries ticked along
the bottom, so a dip in GPU utilization can be read against the steps.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..findings import Diagnosis
from ..record import RunRecord, Step
from .. import display
from ..vocabulary import PHASE
from .charts import PALETTE, Band, Line, Marker, MAX_STEP_TICKS, timeline
from .sections import bare_reason, gpu_unavailable_reason

__all__ = ["timelines_section", "hero_chart", "time_range", "phase_bands", "other_load", "OUTSIDE_LOAD_RULE"]

_PHASE_COLORS = {"warmup": "#eceff3", "census": "#f1f1ec", "steady": "#e4f0fb", "profiled": "#fbf3dc",
                 "cprofile": "#f3e8f7", "after": "#ffffff"}
_PHASE_LABELS = {"warmup": "warm-up", "census": "counting step", "steady": "steady (measured)", "profiled": "torch.profiler",
                 "cprofile": "cProfile", "after": "after"}
MAX_EPOCH_MARKERS = 60


def time_range(record: RunRecord) -> tuple[float, float]:
    ends = [record.outcome.duration]
    s = record.samples
    ends += [s.host.t[-1]] if s.host.t else []
    ends += [p.t[-1] for p in s.processes if p.t] + [g.t[-1] for g in s.gpus if g.t]
    ends += [record.steps[-1].start + record.steps[-1].duration] if record.steps else []
    return 0.0, max([e for e in ends if e] or [1.0])


def phase_bands(steps: Sequence[Step]) -> list[Band]:
    bands: list[Band] = []
    for s in steps:
        end = s.start + s.duration
        if bands and bands[-1].label == _PHASE_LABELS.get(s.phase, s.phase):
            bands[-1] = Band(bands[-1].t0, end, bands[-1].label, bands[-1].color)
        else:
            bands.append(Band(s.start, end, _PHASE_LABELS.get(s.phase, s.phase), _PHASE_COLORS.get(s.phase, "#f5f7fa")))
    return bands


def _context(record: RunRecord) -> dict[str, Any]:
    epochs = [s.start for s in record.steps if s.epoch_start]
    markers = [Marker(t, "epoch start") for t in epochs] if len(epochs) <= MAX_EPOCH_MARKERS else []
    if record.outcome.status in ("failed", "killed", "timeout", "interrupted", "probe_error"):
        markers.append(Marker(record.outcome.duration, f"run ended: {record.outcome.status}", "#cf222e"))
    return {"t_range": time_range(record), "bands": phase_bands(record.steps), "markers": markers,
            "step_starts": [s.start for s in record.steps]}


def _chart(title: str, svg, legend: list[tuple[str, str, bool]], note: str = "") -> dict[str, Any]:
    return {"title": title, "svg": svg, "legend": legend, "note": note, "unavailable": None}


def _missing(title: str, reason: str) -> dict[str, Any]:
    return {"title": title, "svg": None, "legend": [], "note": "", "unavailable": reason}


def _pct(v: float) -> str:
    return f"{v:g}%"


def gpu_util_chart(record: RunRecord, ctx: dict[str, Any], height: int = 170) -> dict[str, Any]:
    lines, legend = [], []
    many = len(record.samples.gpus) > 1
    for i, g in enumerate(record.samples.gpus):
        name = f"GPU {g.index} " if many else ""
        c = PALETTE[i % len(PALETTE)]
        lines.append(Line(f"{name}SM busy", g.t, g.sm_util, c, fill=True))
        legend.append((f"{name}SM busy (kernels running)", c, False))
        if any(v is not None for v in g.mem_util):
            lines.append(Line(f"{name}memory bandwidth", g.t, g.mem_util, c, dashed=True))
            legend.append((f"{name}memory bandwidth busy", c, True))
    svg = timeline(lines, y_max=100, y_format=_pct, label="GPU utilization", height=height, **ctx)
    return _chart("GPU utilization", svg, legend)


def _power_chart(record: RunRecord, ctx: dict[str, Any]) -> dict[str, Any]:
    lines, legend, limits = [], [], []
    for i, g in enumerate(record.samples.gpus):
        c = PALETTE[i % len(PALETTE)]
        lines.append(Line(f"GPU {g.index} power", g.t, g.power_w, c))
        legend.append((f"GPU {g.index} power draw", c, False))
        if g.power_limit_w:
            limits.append((g.power_limit_w, f"GPU {g.index} limit {g.power_limit_w:g} W"))
    if not any(v is not None for ln in lines for v in ln.y):
        return _missing("GPU power vs limit", "NVML reported no power readings for this GPU")
    svg = timeline(lines, limits=limits, y_format=lambda v: f"{v:g} W", label="GPU power", **ctx)
    return _chart("GPU power vs limit", svg, legend)


def _gpu_memory_chart(record: RunRecord, ctx: dict[str, Any]) -> dict[str, Any]:
    lines, legend, limits = [], [], []
    for i, g in enumerate(record.samples.gpus):
        c = PALETTE[i % len(PALETTE)]
        lines.append(Line(f"GPU {g.index} used", g.t, _scaled(g.mem_used, GIB), c, fill=True))
        legend.append((f"GPU {g.index} memory used (all processes)", c, False))
        if any(v is not None for v in g.process_mem_used):
            lines.append(Line(f"GPU {g.index} this run", g.t, _scaled(g.process_mem_used, GIB), c, dashed=True))
            legend.append((f"GPU {g.index} used by this run", c, True))
        if g.mem_total:
            limits.append((g.mem_total / GIB, f"GPU {g.index} total {display.nbytes(g.mem_total)}"))
    svg = timeline(lines, limits=limits, y_format=lambda v: f"{v:g} GiB" if v else "0", label="GPU memory", **ctx)
    return _chart("GPU memory", svg, legend)


GIB = 2**30


def _scaled(values, unit: float) -> list[Optional[float]]:
    """Values in a round unit (GiB, MiB/s), so the axis gets round ticks."""
    return [None if v is None else v / unit for v in values]


def _process_label(record: RunRecord, p) -> str:
    worker = {w.pid: w for w in record.workers}.get(p.pid)
    if p.role == "main":
        return f"main process (pid {p.pid})"
    if worker is not None and worker.worker_id >= 0:
        return f"worker {worker.worker_id} (pid {p.pid})"
    return f"{p.role} (pid {p.pid})"


def _cpu_chart(record: RunRecord, ctx: dict[str, Any], height: int = 190) -> dict[str, Any]:
    procs = sorted(record.samples.processes, key=lambda p: (p.role != "main", p.role != "worker", p.pid))
    host = record.samples.host
    cores = record.environment.logical_cores
    if not procs and not host.cpu_percent:
        return _missing("CPU by process", bare_reason(record.samples.host_availability.reason or "no CPU samples were recorded"))
    lines, legend = [], []
    for i, p in enumerate(procs):
        c = PALETTE[i % len(PALETTE)]
        label = _process_label(record, p)
        lines.append(Line(label, p.t, [v / 100 for v in p.cpu_percent], c, fill=(p.role == "main")))
        legend.append((label, c, False))
    if host.cpu_percent and cores:
        lines.append(Line("whole machine", host.t, [v * cores / 100 for v in host.cpu_percent], "#5b6673", dashed=True))
        legend.append(("whole machine (all processes)", "#5b6673", True))
    usable = record.environment.usable_cores or cores
    limits = [(float(usable), f"{usable} usable cores")] if usable else []
    svg = timeline(lines, limits=limits, y_format=lambda v: f"{v:g}", label="CPU by process", height=height, **ctx)
    return _chart("CPU by process (cores busy; 1 = one core)", svg, legend)


def _disk_chart(record: RunRecord, ctx: dict[str, Any]) -> dict[str, Any]:
    host = record.samples.host
    if not host.disk_read_bps:
        return _missing("Disk read", bare_reason(record.samples.host_availability.reason or "no disk samples were recorded"))
    peak = max((v for v in host.disk_read_bps if v is not None), default=0.0)
    unit, name = next((u, n) for u, n in ((2**30, "GiB/s"), (2**20, "MiB/s"), (2**10, "KiB/s"), (1, "B/s"))
                      if peak >= u or u == 1)
    lines = [Line("disk read", host.t, _scaled(host.disk_read_bps, unit), PALETTE[1], fill=True)]
    legend = [("disk read, whole machine", PALETTE[1], False)]
    svg = timeline(lines, y_format=lambda v: f"{v:g} {name}" if v else "0", label="Disk read", height=140, **ctx)
    return _chart("Disk read", svg, legend)


def _step_chart(record: RunRecord, ctx: dict[str, Any]) -> Optional[dict[str, Any]]:
    steps = [s for s in record.steps]
    if not steps:
        return None
    t = [s.start for s in steps]
    wait = PHASE["data_wait"]
    lines = [Line("step time", t, [s.duration for s in steps], PALETTE[0]),
             Line(wait.label, t, [s.data_wait for s in steps], wait.colour, fill=True)]
    legend = [("step time", PALETTE[0], False), (f"of which {wait.doing}", wait.colour, False)]
    svg = timeline(lines, y_format=display.seconds, label="Step time", height=150, **ctx)
    return _chart("Step time, step by step", svg, legend)


def hero_summary(record: RunRecord, facts: dict[str, Any]) -> Optional[str]:
    """One sentence on what the device did while the steady steps ran (the facts' figures)."""
    if not facts.get("steady_steps"):
        return None
    if gpu_unavailable_reason(record) is None:
        busy = facts.get("gpu_util_p50")
        if busy is None:
            return None
        return (f"The GPU ran kernels a median {display.percent(busy)} of the time and sat idle "
                f"{display.percent(100 - busy)} during the steady steps.")  # type: ignore[operator]
    main = facts.get("main_cpu_cores")
    if main is None:
        return None
    text = f"No GPU: the training process kept {display.number(main, 2)} cores busy"
    workers = facts.get("worker_processes")
    if workers:
        text += (f", its {workers} DataLoader worker{'s' if workers != 1 else ''} "
                 f"{display.number(facts.get('worker_cores_used'), 2)} cores in all")
    return text + " during the steady steps."


# The rule whose finding says other programs competed for the CPU: the banner shows when it fired,
# so the rule's thresholds (and a --rules override of them) decide both.
OUTSIDE_LOAD_RULE = "outside-cpu-load"


def other_load(diagnosis: Diagnosis) -> Optional[str]:
    """A warning when other programs kept the machine's CPUs busy while trainprobe measured: the
    outside-cpu-load finding's title, and what it means for the timings above it."""
    finding = next((f for f in diagnosis.findings if f.id == OUTSIDE_LOAD_RULE), None)
    if finding is None or not finding.title:
        return None
    title = finding.title.strip().rstrip(".")
    return (f"{title[:1].upper()}{title[1:]}, so these timings may be slower and noisier than on a "
            "quiet machine.")


def hero_chart(record: RunRecord, diagnosis: Diagnosis) -> Optional[dict[str, Any]]:
    """The one chart on the first screen: the device's activity (GPU, or the CPU without one)."""
    ctx = _context(record)
    chart = None
    if gpu_unavailable_reason(record) is None:
        chart = gpu_util_chart(record, ctx, height=150)
    elif record.samples.processes or record.samples.host.cpu_percent:
        chart = _cpu_chart(record, ctx, height=150)
    if chart is not None:
        facts = diagnosis.fact_values()
        chart["note"] = hero_summary(record, facts) or ""
        chart["noise"] = other_load(diagnosis)
    return chart


def timelines_section(record: RunRecord) -> dict[str, Any]:
    ctx = _context(record)
    reason = gpu_unavailable_reason(record)
    charts = []
    step = _step_chart(record, ctx)
    if step:
        charts.append(step)
    if reason is None:
        charts += [gpu_util_chart(record, ctx), _power_chart(record, ctx), _gpu_memory_chart(record, ctx)]
    charts += [_cpu_chart(record, ctx), _disk_chart(record, ctx)]
    n_steps = len(record.steps)
    every = -(-n_steps // MAX_STEP_TICKS) if n_steps else 1
    return {
        "charts": charts,
        "gpu_reason": reason,
        "phases": [(_PHASE_LABELS[k], _PHASE_COLORS[k]) for k in _PHASE_LABELS
                   if any(s.phase == k for s in record.steps)],
        "ticks_note": (f"Ticks on the time axis mark step starts (one tick every {every} steps, {n_steps:,} steps in all)."
                       if every > 1 else "Ticks on the time axis mark step starts.")
        + (" Dashed vertical lines mark epoch starts." if any(m.label == "epoch start" for m in ctx["markers"]) else "")
        + (" The red line marks where the run ended." if any(m.color == "#cf222e" for m in ctx["markers"]) else ""),
        "interval": display.seconds(record.samples.interval),
    }
