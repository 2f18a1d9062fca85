"""The report's sections as plain view data: numbers already formatted for people.

Each ``*_section`` function is pure and returns dicts and lists that the
templates lay out; no template does arithmetic or unit conversion. Every
figure about the steps comes from the diagnosis's facts (one steady window,
one step-time base, in ``trainprobe.facts``): the report shows them and never
recomputes a share, a window or a ranking.
A section whose data is missing says why (``available``/``reason``) instead
of rendering empty.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from typing import Any, Optional

from ..engine.verdict import larger_lever_below
from ..findings import Diagnosis, Finding
from ..record import RunRecord
from .. import display, vocabulary

__all__ = [
    "PHASES", "STATUS_TEXT", "CATEGORY_TEXT",
    "header_section", "outcome_section", "verdict_section", "breakdown_section",
    "findings_section", "gpu_unavailable_reason", "bare_reason", "exception_text",
]

# Step phases in display order: (field, label, colour), as the vocabulary names and colours them.
PHASES = tuple((p.name, p.label, p.colour) for p in vocabulary.PHASES)

_SHOWN_WHEN_USED = ("debug",)  # a row only for runs that spent time there

STATUS_TEXT = {
    "completed": ("completed", "ok"),
    "stopped": ("stopped by trainprobe after its measurement window", "ok"),
    "failed": ("failed", "bad"),
    "interrupted": ("was interrupted (Ctrl-C)", "warn"),
    "killed": ("was killed by a signal", "bad"),
    "timeout": ("stopped: ran past --timeout", "warn"),
    "not_started": ("could not be started", "bad"),
    "probe_error": ("was cut short by a failure in trainprobe itself; what was measured is kept", "bad"),
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

def script_name(record: RunRecord) -> str:
    inv = record.invocation
    if inv.script:
        return os.path.basename(inv.script) or inv.script
    if inv.module:
        return f"-m {inv.module}"
    if inv.options.get("source") == "notebook":  # %%trainprobe or measure(), in this process
        return str(inv.options.get("label") or "notebook")
    files = inv.options.get("files") if inv.options.get("source") == "trace" else None
    if files:
        first = os.path.basename(str(files[0]))
        return first if len(files) == 1 else f"{first} and {len(files) - 1} more"
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


def exception_text(outcome) -> Optional[str]:
    """"RuntimeError: what it said" (the type alone when it said nothing); None without an exception."""
    if not outcome.exception_type:
        return None
    return outcome.exception_type + (f": {outcome.exception_message}" if outcome.exception_message else "")


def outcome_section(record: RunRecord) -> dict[str, Any]:
    o = record.outcome
    text, css = STATUS_TEXT.get(o.status, (o.status, "warn"))
    if o.time_limited:  # slow steps: not "after its measurement window", which never closed (test set 21's hifi-gan)
        text = "stopped by trainprobe at its time limit (--max-seconds), before its windows were all done"
    exception = exception_text(o)
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


def verdict_section(diagnosis: Diagnosis) -> dict[str, Any]:
    """The verdict and its headline numbers, all of them the diagnosis's facts."""
    v = diagnosis.verdict
    facts = diagnosis.fact_values()
    steady = facts.get("steady_steps") or 0
    borrowed = facts.get("steady_from_warmup") or 0
    counted = (f", {borrowed} of them warm-up steps counted because the run was too short for a separate warm-up"
               if borrowed else "")
    if facts.get("steady_micro_batches"):
        counted += f", holding {facts.get('steady_micro_batches')} micro-batches of accumulated gradients"
    numbers = [
        ("step time", display.seconds(facts.get("step_time")),
         f"mean of {steady} steady steps{counted} (the base of every share); "
         f"median {display.seconds(facts.get('step_time_median'))}"),
        ("steps/s", display.number(facts.get("steps_per_second")), "1 / mean step time"),
    ]
    if facts.get("samples_per_second") is not None:
        numbers.append(("samples/s", display.number(facts.get("samples_per_second")),
                        "samples over the steady steps' time"))
    if facts.get("data_wait_share") is not None:
        numbers.append(("waiting for data", display.share(facts.get("data_wait_share")), "share of the step"))
    if facts.get("mfu") is not None:
        numbers.append(("MFU", display.share(facts.get("mfu"), 1),
                        f"the step's matrix FLOP/s over {facts.get('peak_source')} {facts.get('peak_dtype')} peak "
                        f"({display.flop_rate(facts.get('peak_flops_per_s'))})"))
    if v.share_low is not None and v.share_high is not None and v.category in v.breakdown:
        numbers.append((f"{v.category} share", f"{display.share(v.breakdown[v.category])} "
                        f"({display.share(v.share_low)}–{display.share(v.share_high)})",
                        f"the verdict's class, with its 95% interval over resamples of the steady steps; "
                        f"{display.share(v.agreement)} of them reach this verdict"))
    combined = diagnosis.whatif_combined
    lever = larger_lever_below(list(diagnosis.findings))
    return {
        "lever": {"rank": lever[0], "id": lever[1].id, "title": lever[1].title or lever[1].name,
                  "gain": lever[1].gain.text} if lever else None,
        "category": v.category,
        "label": CATEGORY_TEXT.get(v.category, v.category),
        "headline": v.headline,
        "numbers": numbers,
        "causes": _cause_bar(v.breakdown),
        "steady_steps": steady,
        "combined": combined.text if combined else None,
        "combined_measured": bool(combined and combined.status == "measured"),
    }


_CAUSE_COLORS = {"input": "#d55e00", "host": "#9aa5b1", "launch": "#cc79a7", "sync": "#b58900",
                 "copy": "#e69f00", "compute": "#0b5cad", "memory": "#6a3d9a", "communication": "#009e73"}


def _cause_bar(breakdown: dict[str, float]) -> list[dict[str, Any]]:
    """The engine's split of the step by cause (its shares add up to one)."""
    return [{"label": k, "share": v, "text": display.share(v), "color": _CAUSE_COLORS.get(k, "#5b6673")}
            for k, v in sorted(breakdown.items(), key=lambda kv: -kv[1]) if v and v > 0]


def _copies_mostly_wait_for_the_gpu(facts: dict[str, object]) -> bool:
    """The host's copy phase is mostly a wait: a blocking .to() returns only once the GPU has run the work
    queued before it, so on a busy GPU the host's "copy to device" time is the GPU's compute, not copying
    (the device timeline's exposed copying, h2d_exposed_share, is far smaller)."""
    exposed, host = facts.get("h2d_exposed_share"), facts.get("h2d_share")
    return bool(facts.get("cuda_used") and facts.get("device_timeline_available")
                and isinstance(exposed, (int, float)) and isinstance(host, (int, float)) and exposed < host / 2)


def breakdown_section(diagnosis: Diagnosis) -> dict[str, Any]:
    """Where a step's time goes, by phase: the steady window's facts beside the warm-up's."""
    facts = diagnosis.fact_values()
    steady_n = facts.get("steady_steps") or 0
    rows = []
    for name, label, color in PHASES:
        warmup, steady = facts.get(f"warmup_{name}_per_step"), facts.get(f"{name}_per_step")
        if name in _SHOWN_WHEN_USED and not (warmup or steady):
            continue
        share = facts.get(f"{name}_share")
        rows.append({"name": name, "label": label, "color": color, "warmup": display.seconds(warmup),
                     "steady": display.seconds(steady), "share": share, "share_text": display.share(share),
                     "note": None})
    waiting = _copies_mostly_wait_for_the_gpu(facts)
    for r in rows:
        if r["name"] == "h2d" and waiting:
            r["note"] = (f"the GPU itself copied for {display.share(facts.get('h2d_exposed_share'))} of the step: the "
                         "rest is the host blocked in .to() until the GPU finished the work queued before it")
    # The bar names the phase by what it was: on a busy GPU the host's copy time is mostly a wait.
    segments = [{"label": "waiting for the GPU in copies to it" if r["note"] else r["label"],
                 "share": r["share"], "color": r["color"],
                 "text": f"{r['label']}: {r['steady']} ({r['share_text']})" + (f"; {r['note']}" if r["note"] else "")}
                for r in rows if r["share"]]
    return {
        "title": "Where a steady step's time goes on the host" if facts.get("cuda_used")
        else "Where a steady step's time goes",
        "available": bool(steady_n),
        "rows": rows,
        "segments": segments,
        "steady_n": steady_n,
        "warmup_n": facts.get("warmup_steps") or 0,
        "steady_mean": display.seconds(facts.get("step_time")),
        "steady_median": display.seconds(facts.get("step_time_median")),
        "warmup_mean": display.seconds(facts.get("warmup_step_time")),
        "partial_batches": facts.get("partial_batch_steps") or 0,
        "probe_share": display.share(facts.get("probe_share")),
        "gpu_busy": display.share(facts.get("gpu_busy_share")),
    }


# How the report names the framework whose terms a finding's advice uses (Finding.framework).
FRAMEWORK_TEXT = {"transformers": "Hugging Face Trainer", "lightning": "Lightning", "accelerate": "accelerate",
                  "timm": "timm", "cli": "the script's command-line flags", "config": "the run's configuration file",
                  "library": "an argument the script passes to the library"}  # a function's or a constructor's


def findings_section(diagnosis: Diagnosis) -> list[dict[str, Any]]:
    """The findings in the engine's order (warnings first, then by the time they recover)."""
    out = []
    for rank, f in enumerate(diagnosis.findings, 1):
        docs = f.docs
        out.append({
            "rank": rank, "id": f.id, "name": f.name, "title": f.title or f.name or f.id,
            "category": f.category, "severity": f.severity,
            "severity_css": {"critical": "bad", "warning": "warn"}.get(f.severity, "muted"),
            "message": f.message, "advice": f.advice, "snippet": f.snippet, "changes_at": f.changes_at,
            "framework": FRAMEWORK_TEXT.get(f.framework, f.framework),
            "evidence": [(e.label, e.value, e.threshold or "") for e in f.evidence],
            "gain": f.gain.text, "source": f.source,
            "docs": [(k, getattr(docs, k)) for k in ("what", "why", "evidence", "fix", "options")
                     if getattr(docs, k)],
            "references": [(r, _safe_href(r)) for r in docs.references],
            "verification": _verification(f),
        })
    return out


def _safe_href(url: str) -> Optional[str]:
    return url if url.startswith(("https://", "http://")) else None


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
