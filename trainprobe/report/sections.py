"""The report's sections as plain view data: numbers already formatted for people.

Each ``*_section(record, ...)`` function is pure and returns dicts and lists
that the templates lay out; no template does arithmetic or unit conversion.
A section whose data is missing says why (``available``/``reason``) instead
of rendering empty.
"""

from __future__ import annotations

import json
import os
import re
import statistics
from datetime import datetime
from typing import Any, Optional, Sequence

from ..diagnosis import Diagnosis, Finding
from ..record import PHASE_WARMUP, RunRecord, Step
from . import format as fmt

__all__ = [
    "PHASES", "STATUS_TEXT", "CATEGORY_TEXT", "SEVERITY_RANK",
    "header_section", "outcome_section", "verdict_section", "breakdown_section",
    "rank_findings", "findings_section", "ops_section", "hotspots_section",
    "environment_section", "settings_section", "gpu_unavailable_reason", "bare_reason",
]

# Step phases in display order: (field, label, colour).
PHASES = (
    ("data_wait", "data wait", "#d55e00"),
    ("h2d", "host→device copy", "#e69f00"),
    ("forward", "forward", "#0b5cad"),
    ("backward", "backward", "#56b4e9"),
    ("optimizer", "optimizer", "#009e73"),
    ("eval", "validation", "#cc79a7"),
    ("other", "other (Python, logging, zero_grad…)", "#9aa5b1"),
)

STATUS_TEXT = {
    "completed": ("completed", "ok"),
    "stopped": ("stopped by trainprobe after its measurement window", "ok"),
    "failed": ("failed", "bad"),
    "interrupted": ("interrupted (Ctrl-C)", "warn"),
    "killed": ("killed by a signal", "bad"),
    "timeout": ("stopped: ran past --timeout", "warn"),
    "not_started": ("could not be started", "bad"),
    "probe_error": ("trainprobe itself failed; what was measured is kept", "bad"),
}

CATEGORY_TEXT = {
    "input": "Input-bound",
    "host": "Host-bound",
    "launch": "Launch-bound",
    "sync": "Sync-bound",
    "copy": "Copy-bound",
    "compute": "Compute-bound",
    "memory": "Memory-bound",
    "communication": "Communication-bound",
    "unknown": "No verdict",
}

SEVERITY_RANK = {"critical": 2, "warning": 1, "info": 0}

# Rows of a hotspot or op table shown before "more": the rest fold away.
HOTSPOTS_SHOWN = 12


def _mean(xs: Sequence[float]) -> Optional[float]:
    return statistics.fmean(xs) if xs else None


def _median(xs: Sequence[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


def _yes_no(v: Optional[bool]) -> str:
    return fmt.MISSING if v is None else ("yes" if v else "no")


def script_name(record: RunRecord) -> str:
    inv = record.invocation
    if inv.script:
        return os.path.basename(inv.script) or inv.script
    if inv.module:
        return f"-m {inv.module}"
    return "(unknown script)"


def _when(iso: str) -> str:
    """An ISO 8601 time as people write it: 2026-11-21 22:30 (+01:00)."""
    try:
        when = datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return iso
    offset = when.strftime("%z")
    offset = f" (UTC{offset[:3]}:{offset[3:]})" if offset else ""
    return when.strftime("%Y-%m-%d %H:%M") + offset


def header_section(record: RunRecord) -> dict[str, Any]:
    inv = record.invocation
    return {
        "script": script_name(record),
        "script_path": inv.script or inv.module or "",
        "command_line": inv.command_line,
        "started_at": _when(inv.started_at),
        "version": inv.trainprobe_version,
        "cwd": inv.cwd,
        "options": json.dumps(inv.options, indent=2, sort_keys=True, default=str) if inv.options else "",
    }


def outcome_section(record: RunRecord) -> dict[str, Any]:
    o = record.outcome
    text, css = STATUS_TEXT.get(o.status, (o.status, "warn"))
    exception = None
    if o.exception_type:
        exception = o.exception_type + (f": {o.exception_message}" if o.exception_message else "")
    return {
        "status": o.status,
        "text": text,
        "css": css,
        "ok": o.status in ("completed", "stopped"),
        "no_steps": not record.steps,
        "exit_code": o.exit_code,
        "signal": o.signal,
        "exception": exception,
        "traceback": o.traceback,
        "reason": o.reason,
        "oom": o.oom,
        "rows": [
            ("Status", text),
            ("Exit code", fmt.MISSING if o.exit_code is None else str(o.exit_code)),
            ("Signal", o.signal or fmt.MISSING),
            ("Ran for", fmt.seconds(o.duration)),
            ("Start-up (launch to first step)", fmt.seconds(o.startup)),
            ("Steps measured", fmt.count(len(record.steps))),
            ("Out of memory", "yes" if o.oom else "no"),
        ],
    }


def verdict_section(record: RunRecord, diagnosis: Diagnosis) -> dict[str, Any]:
    v = diagnosis.verdict
    steady = record.steady_steps()
    step_time = v.step_time if v.step_time is not None else _median([s.duration for s in steady])
    sps = v.steps_per_second
    if sps is None and step_time:
        sps = 1.0 / step_time
    numbers = [
        ("step time", fmt.seconds(step_time), "median of the steady window"),
        ("steps/s", fmt.number(sps), ""),
    ]
    if v.samples_per_second is not None:
        numbers.append(("samples/s", fmt.number(v.samples_per_second), ""))
    share = _data_wait_share(steady)
    if share is not None:
        numbers.append(("waiting for data", fmt.share(share), "share of the step"))
    return {
        "category": v.category,
        "label": CATEGORY_TEXT.get(v.category, v.category),
        "headline": v.headline,
        "step_time": step_time,
        "numbers": numbers,
        "causes": _cause_bar(v.breakdown),
        "steady_steps": len(steady),
    }


def _data_wait_share(steps: Sequence[Step]) -> Optional[float]:
    total = sum(s.duration for s in steps)
    return sum(s.data_wait for s in steps) / total if total > 0 else None


_CAUSE_COLORS = {"input": "#d55e00", "host": "#9aa5b1", "launch": "#cc79a7", "sync": "#b58900",
                 "copy": "#e69f00", "compute": "#0b5cad", "memory": "#6a3d9a", "communication": "#009e73"}


def _cause_bar(breakdown: dict[str, float]) -> list[dict[str, Any]]:
    total = sum(v for v in breakdown.values() if v and v > 0)
    if total <= 0:
        return []
    return [{"label": k, "share": v / total, "text": fmt.share(v), "color": _CAUSE_COLORS.get(k, "#5b6673")}
            for k, v in sorted(breakdown.items(), key=lambda kv: -kv[1]) if v and v > 0]


def breakdown_section(record: RunRecord) -> dict[str, Any]:
    """Where a step's time goes, by phase: warm-up against the steady window."""
    steady = record.steady_steps()
    warmup = tuple(s for s in record.steps if s.phase == PHASE_WARMUP)
    rows = []
    for name, label, color in PHASES:
        w = _mean([getattr(s, name) for s in warmup])
        m = _mean([getattr(s, name) for s in steady])
        rows.append({"name": name, "label": label, "color": color,
                     "warmup": fmt.seconds(w), "steady": fmt.seconds(m), "steady_s": m or 0.0})
    mean_steady = _mean([s.duration for s in steady])
    for row in rows:
        row["share"] = (row["steady_s"] / mean_steady) if mean_steady else None
        row["share_text"] = fmt.share(row["share"])
    return {
        "available": bool(steady),
        "rows": rows,
        "bars": [_bar("steady", steady), _bar("warm-up", warmup)],
        "steady_n": len(steady),
        "warmup_n": len(warmup),
        "steady_mean": fmt.seconds(mean_steady),
        "steady_median": fmt.seconds(_median([s.duration for s in steady])),
        "warmup_mean": fmt.seconds(_mean([s.duration for s in warmup])),
        "probe_share": fmt.share(sum(s.probe for s in steady) / sum(s.duration for s in steady))
        if steady and sum(s.duration for s in steady) > 0 else fmt.MISSING,
        # device-side busy time from CUDA events: shown only when the run used a GPU
        "gpu_busy": fmt.share(_gpu_busy_share(steady)) if record.settings.cuda_used else fmt.MISSING,
    }


def _gpu_busy_share(steps: Sequence[Step]) -> Optional[float]:
    timed = [s for s in steps if s.gpu_busy is not None and s.duration > 0]
    if not timed:
        return None
    return sum(s.gpu_busy or 0.0 for s in timed) / sum(s.duration for s in timed)


def _bar(label: str, steps: Sequence[Step]) -> dict[str, Any]:
    mean = _mean([s.duration for s in steps])
    segments = []
    if mean:
        for name, plabel, color in PHASES:
            v = _mean([getattr(s, name) for s in steps]) or 0.0
            if v > 0:
                segments.append({"label": plabel, "share": min(1.0, v / mean), "color": color,
                                 "text": f"{plabel}: {fmt.seconds(v)} ({fmt.share(v / mean)})"})
    return {"label": label, "n": len(steps), "mean": fmt.seconds(mean), "segments": segments}


def _seconds_saved(f: Finding, step_time: Optional[float]) -> float:
    if f.gain.seconds_per_step is not None:
        return f.gain.seconds_per_step
    if f.gain.speedup and step_time and f.gain.speedup > 0:
        return step_time * (1 - 1 / f.gain.speedup)
    return 0.0


def rank_findings(diagnosis: Diagnosis, step_time: Optional[float] = None) -> list[Finding]:
    """Findings by estimated gain (seconds saved per step), then severity; the engine's order breaks ties."""
    step_time = step_time if step_time is not None else diagnosis.verdict.step_time
    indexed = list(enumerate(diagnosis.findings))
    indexed.sort(key=lambda p: (-_seconds_saved(p[1], step_time), -SEVERITY_RANK.get(p[1].severity, 0), p[0]))
    return [f for _, f in indexed]


def _safe_href(url: str) -> Optional[str]:
    return url if url.startswith(("https://", "http://")) else None


def findings_section(diagnosis: Diagnosis, step_time: Optional[float]) -> list[dict[str, Any]]:
    out = []
    for rank, f in enumerate(rank_findings(diagnosis, step_time), 1):
        gain = f.gain.text
        if not gain and f.gain.speedup:
            gain = f"about {fmt.ratio(f.gain.speedup)} faster steps"
        if not gain and f.gain.seconds_per_step:
            gain = f"about {fmt.seconds(f.gain.seconds_per_step)} less per step"
        docs = f.docs
        out.append({
            "rank": rank, "id": f.id, "name": f.name, "title": f.title or f.name or f.id,
            "category": f.category, "severity": f.severity,
            "severity_css": {"critical": "bad", "warning": "warn"}.get(f.severity, "muted"),
            "message": f.message, "advice": f.advice, "snippet": f.snippet,
            "evidence": [(e.label, e.value, e.threshold or "") for e in f.evidence],
            "gain": gain, "source": f.source,
            "docs": [(k, getattr(docs, k)) for k in ("what", "why", "evidence", "fix", "options")
                     if getattr(docs, k)],
            "references": [(r, _safe_href(r)) for r in docs.references],
            "verification": _verification(f),
        })
    return out


def _verification(f: Finding) -> Optional[dict[str, Any]]:
    v = f.verification
    if v is None or v.status == "not_run":
        return None
    span = ""
    if v.low is not None and v.high is not None:
        span = f" (range {fmt.ratio(v.low)}–{fmt.ratio(v.high)}, n={v.n})"
    return {"status": v.status, "text": v.text or f"measured speed-up {fmt.ratio(v.speedup)}{span}",
            "css": "ok" if v.status == "measured" else "muted"}


def ops_section(record: RunRecord) -> dict[str, Any]:
    p = record.profiler
    def rows(ops, key):
        top = max((getattr(o, key) for o in ops), default=0.0) or 1.0
        return [{"name": o.name, "calls": fmt.count(o.calls), "self_cpu": fmt.seconds(o.self_cpu),
                 "cpu_total": fmt.seconds(o.cpu_total), "self_cuda": fmt.seconds(o.self_cuda),
                 "cuda_total": fmt.seconds(o.cuda_total), "shapes": o.input_shapes or "",
                 "bar": getattr(o, key) / top} for o in ops]
    summary = [
        ("steps profiled", fmt.count(p.steps)), ("window", fmt.seconds(p.wall)),
        ("ops per step", fmt.number(p.ops_per_step)),
        ("top-level ops per step", fmt.number(p.toplevel_ops_per_step)),
        ("mean CPU time per top-level op", fmt.seconds(p.mean_toplevel_op_time)),
        ("kernel launches per step", fmt.number(p.launches_per_step)),
        ("mean kernel time", fmt.seconds(p.mean_kernel_time)),
        ("GPU idle in window", fmt.share(p.gpu_idle_share)),
        ("host→device copies per step", fmt.number(p.h2d_copies_per_step)),
        ("host→device bytes per step", fmt.nbytes(p.h2d_bytes_per_step)),
        ("… from pageable memory", fmt.nbytes(p.h2d_pageable_bytes_per_step)),
        ("syncs per step", fmt.number(p.syncs_per_step)),
        ("matmul/conv share", fmt.share(p.matmul_conv_share)),
        ("… in fp32", fmt.share(p.fp32_matmul_conv_share)),
        ("peak memory allocated", fmt.nbytes(p.peak_memory_allocated)),
    ]
    return {
        "available": p.availability.available,
        "reason": bare_reason(p.availability.reason or "the profiler window did not run"),
        "activities": ", ".join(p.activities),
        "summary": [(k, v) for k, v in summary if v != fmt.MISSING],
        "sync_calls": [(k, fmt.number(v)) for k, v in sorted(p.sync_calls.items(), key=lambda kv: -kv[1])],
        "cpu": rows(p.top_cpu_ops, "self_cpu"),
        "cuda": rows(p.top_cuda_ops, "self_cuda"), "shown": HOTSPOTS_SHOWN,
        "trace_path": p.trace_path,
    }


_TRAINPROBE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _where(path: str, line: int, roots: Sequence[str]) -> str:
    """A short location: relative to the script's folder, the working folder or the library root."""
    for root in roots:
        root = root.rstrip("/")
        if root and path.startswith(root + "/"):
            path = path[len(root) + 1:]
            break
    else:
        if "-packages/" in path:
            path = path.split("-packages/", 1)[1]
    return f"{path}:{line}" if line else path


def hotspots_section(record: RunRecord) -> dict[str, Any]:
    h = record.hotspots
    inv = record.invocation
    roots = [os.path.dirname(inv.script) if inv.script else "", inv.cwd, _TRAINPROBE_ROOT]
    def rows(funcs, window):
        return [{"function": fn.function, "where": _where(fn.file, fn.line, roots), "calls": fmt.count(fn.calls),
                 "self": fmt.seconds(fn.self_time), "cumulative": fmt.seconds(fn.cumulative),
                 "self_share": fmt.share(fn.self_time / window) if window else fmt.MISSING,
                 "category": fn.category or "", "user": fn.user_code} for fn in funcs]
    cats = sorted(h.worker_categories.items(), key=lambda kv: -kv[1])
    return {
        "available": h.availability.available,
        "reason": bare_reason(h.availability.reason or "the cProfile window did not run"),
        "window": fmt.seconds(h.window), "steps": h.steps, "worker_window": fmt.seconds(h.worker_window),
        "main": rows(h.main, h.window), "workers": rows(h.workers, h.worker_window), "shown": HOTSPOTS_SHOWN,
        "categories": [{"label": k, "share": v, "text": fmt.share(v)} for k, v in cats if v > 0],
    }


def gpu_unavailable_reason(record: RunRecord) -> Optional[str]:
    """Why there are no GPU timelines, or None when there are."""
    s = record.samples
    if s.gpus and s.gpu_availability.available:
        return None
    env = record.environment
    reason = (s.gpu_availability.reason or env.nvml.reason
              or ("no NVIDIA GPU was found" if env.gpu_count == 0 else "the GPU sampler recorded nothing"))
    return bare_reason(reason)


_UNAVAILABLE = re.compile(r"^[^:]{0,60}\bunavailable\s*[:—-]\s*", re.I)


def bare_reason(reason: str) -> str:
    """The reason without a leading "X unavailable:", which the report writes itself."""
    return _UNAVAILABLE.sub("", reason or "", count=1) or reason


def environment_section(record: RunRecord) -> dict[str, Any]:
    e = record.environment
    pillow = e.pillow or fmt.MISSING
    if e.pillow:
        flavour = "Pillow-SIMD" if e.pillow_simd else "Pillow"
        turbo = {True: ", libjpeg-turbo", False: ", plain libjpeg", None: ""}[e.libjpeg_turbo]
        pillow = f"{flavour} {e.pillow}{turbo}"
    cores = f"{fmt.count(e.logical_cores)} logical, {fmt.count(e.physical_cores)} physical"
    if e.usable_cores is not None:
        cores += f", {fmt.count(e.usable_cores)} usable by this run"
    rows = [
        ("Python", e.python), ("Platform", e.platform),
        ("PyTorch", (e.torch or fmt.MISSING) + (f" (CUDA {e.torch_cuda_build})" if e.torch_cuda_build else "")),
        ("torchvision", e.torchvision or fmt.MISSING),
        ("cuDNN", str(e.cudnn) if e.cudnn else fmt.MISSING),
        ("CUDA available", _yes_no(e.cuda_available)),
        ("NVIDIA driver", e.driver or fmt.MISSING),
        ("NVML", "available" if e.nvml.available else f"unavailable: {bare_reason(e.nvml.reason or 'unknown reason')}"),
        ("CPU", e.cpu_model or fmt.MISSING), ("Cores", cores),
        ("CPU quota (cgroup)", fmt.number(e.cgroup_cpu_limit) + " cores" if e.cgroup_cpu_limit else "none"),
        ("RAM", fmt.nbytes(e.ram_total)), ("Swap", fmt.nbytes(e.swap_total)),
        ("/dev/shm", fmt.nbytes(e.shm_total)), ("Pillow", pillow),
        ("torch threads", f"{fmt.count(e.torch_threads)} intra-op, {fmt.count(e.torch_interop_threads)} inter-op"),
    ]
    gpus = [{"index": g.index, "name": g.name, "memory": fmt.nbytes(g.memory_total),
             "cc": g.compute_capability or fmt.MISSING,
             "power": f"{fmt.number(g.power_limit_w)} W" + (f" (max {fmt.number(g.power_max_w)} W)" if g.power_max_w else "")
             if g.power_limit_w else fmt.MISSING,
             "pcie": _pcie(g), "bf16": _yes_no(g.bf16), "tf32": _yes_no(g.tf32)} for g in e.gpus]
    disks = [{"path": d.path, "device": d.device or fmt.MISSING, "fstype": d.fstype or fmt.MISSING,
              "kind": "network" if d.network else ("rotational (hint)" if d.rotational else
                                                   ("solid-state (hint)" if d.rotational is False else fmt.MISSING)),
              "free": f"{fmt.nbytes(d.free_bytes)} of {fmt.nbytes(d.total_bytes)}"} for d in e.disks]
    return {"rows": rows, "gpus": gpus, "disks": disks,
            "gpu_reason": None if e.gpus else bare_reason(e.nvml.reason or "no NVIDIA GPU was found")}


def _pcie(g) -> str:
    if g.pcie_gen is None:
        return fmt.MISSING
    now = f"gen {g.pcie_gen} ×{g.pcie_width or '?'}"
    if g.pcie_gen_max is not None:
        now += f" (max gen {g.pcie_gen_max} ×{g.pcie_width_max or '?'})"
    return now


def settings_section(record: RunRecord) -> dict[str, Any]:
    s = record.settings
    loaders = [{
        "title": f"DataLoader {d.loader_id}" + (" (training)" if d.used_in_training else ""),
        "dataset": d.dataset_type + (f" ({fmt.count(d.dataset_len)} items)" if d.dataset_len is not None else ""),
        "created": d.created_at or "",
        "rows": [
            ("batch size", fmt.count(d.batch_size)), ("num_workers", str(d.num_workers)),
            ("pin_memory", _yes_no(d.pin_memory)), ("persistent_workers", _yes_no(d.persistent_workers)),
            ("prefetch_factor", fmt.count(d.prefetch_factor)), ("worker start method", d.start_method or fmt.MISSING),
            ("drop_last", _yes_no(d.drop_last)), ("sampler", (d.sampler_type or fmt.MISSING).rsplit(".", 1)[-1]),
            ("batches drawn", fmt.count(d.batches)), ("iterators (≈ epochs)", fmt.count(d.iterations)),
            ("time the loop waited", fmt.seconds(d.wait_total)), ("first batch took", fmt.seconds(d.first_batch_wait)),
        ],
    } for d in s.dataloaders]
    optimizers = [{"type": o.type, "lr": fmt.number(o.lr), "wd": fmt.number(o.weight_decay),
                   "foreach": {None: "default"}.get(o.foreach, _yes_no(o.foreach)),
                   "fused": {None: "default"}.get(o.fused, _yes_no(o.fused)),
                   "params": fmt.count(o.params), "groups": o.param_groups,
                   "devices": ", ".join(o.param_devices), "steps": fmt.count(o.steps)} for o in s.optimizers]
    schedulers = [{"type": c.type, "steps": fmt.count(c.steps), "per_step": fmt.number(c.per_optimizer_step)}
                  for c in s.schedulers]
    models = [{"type": m.type, "wrapper": m.wrapper or "", "params": fmt.count(m.params),
               "trainable": fmt.count(m.trainable_params), "size": fmt.nbytes(m.param_bytes),
               "dtypes": ", ".join(m.dtypes), "devices": ", ".join(m.devices),
               "channels_last": _yes_no(m.channels_last), "calls": f"{fmt.count(m.train_calls)} train, {fmt.count(m.eval_calls)} eval",
               "shapes": ", ".join(m.input_shapes)} for m in s.models]
    amp = "no"
    if s.autocast_forwards:
        amp = f"yes: {fmt.count(s.autocast_forwards)} forwards under autocast({s.autocast_device or '?'}, {s.autocast_dtype or '?'})"
    flags = [
        ("Devices used", ", ".join(s.devices_used) or fmt.MISSING),
        ("Mixed precision (AMP)", amp), ("GradScaler", _yes_no(s.grad_scaler_used)),
        ("torch.compile", "yes" + (f" ({s.compile_graphs} graphs, {s.compile_recompiles} recompiles)"
                                   if s.compile_graphs is not None else "") if s.compiled else "no"),
        ("cudnn.benchmark", _yes_no(s.cudnn_benchmark)), ("cudnn.deterministic", _yes_no(s.cudnn_deterministic)),
        ("deterministic algorithms", _yes_no(s.deterministic_algorithms)),
        ("float32 matmul precision", s.float32_matmul_precision or fmt.MISSING),
        ("TF32 (matmul / cuDNN)", f"{_yes_no(s.cuda_matmul_allow_tf32)} / {_yes_no(s.cudnn_allow_tf32)}"),
        ("anomaly detection", _yes_no(s.anomaly_detection)),
        ("autograd profiler (the script's own)", _yes_no(s.autograd_profiler_enabled)),
        ("CUDA_LAUNCH_BLOCKING", _yes_no(s.cuda_launch_blocking)),
        ("sync debug mode", fmt.MISSING if s.sync_debug_mode is None else str(s.sync_debug_mode)),
        ("DataParallel / distributed", f"{_yes_no(s.data_parallel)} / {_yes_no(s.distributed)}"
         + (f" (world size {s.world_size})" if s.world_size else "")),
        ("torch threads", fmt.count(s.torch_threads)),
        ("step boundary", s.step_boundary),
        ("backward calls / optimizer steps", f"{fmt.count(s.backward_calls)} / {fmt.count(s.optimizer_steps)}"),
        ("gradient accumulation", fmt.number(s.grad_accumulation)),
        ("zero_grad calls (set_to_none=False)", f"{fmt.count(s.zero_grad_calls)} ({fmt.count(s.zero_grad_set_to_none_false)})"),
    ]
    return {"loaders": loaders, "optimizers": optimizers, "schedulers": schedulers, "models": models,
            "flags": flags, "env_flags": sorted(s.env_flags.items())}
