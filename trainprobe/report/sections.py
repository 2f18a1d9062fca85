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

from ..findings import Diagnosis, Finding
from ..record import PHASE_WARMUP, RunRecord, Step
from .. import display

__all__ = [
    "PHASES", "STATUS_TEXT", "CATEGORY_TEXT", "SEVERITY_RANK",
    "header_section", "outcome_section", "verdict_section", "breakdown_section",
    "rank_findings", "findings_section", "gpu_unavailable_reason", "bare_reason",
]

# Step phases in display order: (field, label, colour).
PHASES = (
    ("data_wait", "data wait", "#d55e00"),
    ("h2d", "host→device copy", "#e69f00"),
    ("forward", "forward", "#0b5cad"),
    ("backward", "backward", "#56b4e9"),
    ("optimizer", "optimizer", "#009e73"),
    ("eval", "validation", "#cc79a7"),
    ("debug", "debugging aids (anomaly mode)", "#7f3c8d"),
    ("other", "other (Python, logging, zero_grad…)", "#9aa5b1"),
)

_SHOWN_WHEN_USED = ("debug",)  # a row only for runs that spent time there

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



def _mean(xs: Sequence[float]) -> Optional[float]:
    return statistics.fmean(xs) if xs else None


def _median(xs: Sequence[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


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
            ("Exit code", display.UNKNOWN if o.exit_code is None else str(o.exit_code)),
            ("Signal", o.signal or display.UNKNOWN),
            ("Ran for", display.seconds(o.duration)),
            ("Start-up (launch to first step)", display.seconds(o.startup)),
            ("Steps measured", display.count(len(record.steps))),
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
        ("step time", display.seconds(step_time), "median of the steady window"),
        ("steps/s", display.number(sps), ""),
    ]
    if v.samples_per_second is not None:
        numbers.append(("samples/s", display.number(v.samples_per_second), ""))
    share = _data_wait_share(steady)
    if share is not None:
        numbers.append(("waiting for data", display.share(share), "share of the step"))
    return {
        "category": v.category,
        "label": CATEGORY_TEXT.get(v.category, v.category),
        "headline": v.headline,
        "step_time": step_time,
        "numbers": numbers,
        "causes": _cause_bar(v.breakdown),
        "steady_steps": len(steady),
        "combined": diagnosis.whatif_combined.text if diagnosis.whatif_combined else None,
        "combined_measured": bool(diagnosis.whatif_combined and diagnosis.whatif_combined.status == "measured"),
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
    return [{"label": k, "share": v / total, "text": display.share(v), "color": _CAUSE_COLORS.get(k, "#5b6673")}
            for k, v in sorted(breakdown.items(), key=lambda kv: -kv[1]) if v and v > 0]


def breakdown_section(record: RunRecord) -> dict[str, Any]:
    """Where a step's time goes, by phase: warm-up against the steady window."""
    steady = record.steady_steps()
    warmup = tuple(s for s in record.steps if s.phase == PHASE_WARMUP)
    rows = []
    for name, label, color in PHASES:
        w = _mean([getattr(s, name) for s in warmup])
        m = _mean([getattr(s, name) for s in steady])
        if name in _SHOWN_WHEN_USED and not (w or m):
            continue
        rows.append({"name": name, "label": label, "color": color,
                     "warmup": display.seconds(w), "steady": display.seconds(m), "steady_s": m or 0.0})
    mean_steady = _mean([s.duration for s in steady])
    for row in rows:
        row["share"] = (row["steady_s"] / mean_steady) if mean_steady else None
        row["share_text"] = display.share(row["share"])
    return {
        "available": bool(steady),
        "rows": rows,
        "bars": [_bar("steady", steady), _bar("warm-up", warmup)],
        "steady_n": len(steady),
        "warmup_n": len(warmup),
        "steady_mean": display.seconds(mean_steady),
        "steady_median": display.seconds(_median([s.duration for s in steady])),
        "warmup_mean": display.seconds(_mean([s.duration for s in warmup])),
        "probe_share": display.share(sum(s.probe for s in steady) / sum(s.duration for s in steady))
        if steady and sum(s.duration for s in steady) > 0 else display.UNKNOWN,
        # device-side busy time from CUDA events: shown only when the run used a GPU
        "gpu_busy": display.share(_gpu_busy_share(steady)) if record.settings.cuda_used else display.UNKNOWN,
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
                                 "text": f"{plabel}: {display.seconds(v)} ({display.share(v / mean)})"})
    return {"label": label, "n": len(steps), "mean": display.seconds(mean), "segments": segments}


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
            gain = f"about {display.ratio(f.gain.speedup)} faster steps"
        if not gain and f.gain.seconds_per_step:
            gain = f"about {display.seconds(f.gain.seconds_per_step)} less per step"
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
        span = f" (range {display.ratio(v.low)}–{display.ratio(v.high)}, n={v.n})"
    return {"status": v.status, "text": v.text or f"measured speed-up {display.ratio(v.speedup)}{span}",
            "css": "ok" if v.status == "measured" else "muted"}


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
