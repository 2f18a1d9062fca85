"""``trainprobe diagnose --json``: the diagnosis for machines (CI, course dashboards).

The keys below are a promise to scripts: add keys, never rename or remove one. ``compute`` and
``memory`` give their figures in FLOP, FLOP/s and bytes; each is null when unknown, with the
reason under ``why``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..findings import Diagnosis
from ..record import RunRecord

__all__ = ["json_summary", "JSON_SUMMARY_VERSION", "compute_object", "memory_object"]

JSON_SUMMARY_VERSION = 1


def json_summary(record: RunRecord, diagnosis: Diagnosis, report_path: Optional[Path],
                 record_path: Optional[Path] = None) -> dict[str, Any]:
    """A JSON-ready dict: verdict, findings (ranked), outcome, paths."""
    v = diagnosis.verdict
    facts = diagnosis.fact_values()
    o = record.outcome
    return {
        "version": JSON_SUMMARY_VERSION,
        "script": record.invocation.script or record.invocation.module,
        "verdict": {
            "category": v.category,
            "headline": v.headline,
            "step_time_s": facts.get("step_time"),  # the mean steady step: the base of every share
            "step_time_median_s": facts.get("step_time_median"),
            "steps_per_second": facts.get("steps_per_second"),
            "samples_per_second": facts.get("samples_per_second"),
            "breakdown": dict(v.breakdown),
            "primary_finding": v.primary_finding,
        },
        "findings": [
            {
                "id": f.id, "severity": f.severity, "category": f.category, "title": f.title,
                "message": f.message, "advice": f.advice, "changes_at": f.changes_at or None,
                "framework": f.framework or None,
                "gain": {"seconds_per_step": f.gain.seconds_per_step, "speedup": f.gain.speedup,
                         "text": f.gain.text, "base_s": f.gain.base, "per_sample": f.gain.per_sample,
                         "measured": f.gain.measured,
                         "interval": [f.gain.low, f.gain.high] if f.gain.low is not None else None},
                "evidence": [{"label": e.label, "value": e.value, "threshold": e.threshold, "fact": e.fact}
                             for e in f.evidence],
                "verification": f.verification.to_dict() if f.verification else None,
            }
            for f in diagnosis.findings
        ],
        "compute": compute_object(facts),
        "memory": memory_object(facts),
        "outcome": {"status": o.status, "exit_code": o.exit_code, "signal": o.signal,
                    "exception_type": o.exception_type, "reason": o.reason, "duration_s": o.duration,
                    "oom": o.oom},
        "steps_measured": len(record.steps),
        "whatif": _whatif(diagnosis),
        "rule_errors": list(diagnosis.rule_errors),
        "not_judged": list(diagnosis.not_judged),
        "source": "trace" if record.profiler.source == "trace" else "probe",
        "ranks": _ranks(diagnosis),
        "report_path": str(report_path) if report_path is not None else None,
        "record_path": str(record_path) if record_path is not None else None,
    }


# key in the summary -> (fact, the fact that says why it is unknown)
_COMPUTE = {
    "flops_per_step": ("flops_per_step", "flops_unknown_reason"),
    "achieved_flops_per_s": ("achieved_flops_per_s", "mfu_unknown_reason"),
    "peak_flops_per_s": ("peak_flops_per_s", "peak_unknown_reason"),
    "peak_source": ("peak_source", "peak_unknown_reason"),
    "mfu": ("mfu", "mfu_unknown_reason"),
    "memory_bound_share": ("memory_bound_share", None),
}
_MEMORY = {
    "parameters": ("memory_parameters", "memory_unknown_reason"),
    "gradients": ("memory_gradients", "memory_unknown_reason"),
    "optimizer_state": ("memory_optimizer_state", "memory_unknown_reason"),
    "activations": ("memory_activations", "memory_unknown_reason"),
    "peak": ("memory_step_peak", "memory_unknown_reason"),
    "limit": ("memory_limit", None),
    "growth_per_step": ("memory_growth_per_step", "memory_unknown_reason"),
}
_NO_REASON = {
    "memory_bound_share": "no operator profile of the steps (the profiler window did not run, or the record "
                          "predates the split by kind)",
    "limit": "the memory limit could not be read",
    "growth_per_step": "fewer than two steps were counted",
}


def _figures(facts: dict[str, Any], table: dict[str, tuple[str, Optional[str]]]) -> dict[str, Any]:
    """The figures by key, each None with a reason in ``why`` when unknown."""
    out: dict[str, Any] = {}
    why: dict[str, str] = {}
    for key, (fact, reason_fact) in table.items():
        value = facts.get(fact)
        out[key] = value
        if value is None:
            reason = facts.get(reason_fact) if reason_fact else None
            why[key] = str(reason or _NO_REASON.get(key, "not measured in this run"))
    out["why"] = why
    return out


def compute_object(facts: dict[str, Any]) -> dict[str, Any]:
    """The step's FLOPs against the hardware's ceiling (MFU), in FLOP and FLOP/s."""
    out = _figures(facts, _COMPUTE)
    out.update({"flops_per_sample": facts.get("flops_per_sample"), "peak_dtype": facts.get("peak_dtype"),
                "peak_device": facts.get("peak_device"), "uncounted_ops": facts.get("uncounted_ops")})
    return out


def memory_object(facts: dict[str, Any]) -> dict[str, Any]:
    """What fills memory in a step, in bytes."""
    out = _figures(facts, _MEMORY)
    out.update({"activations_per_sample": facts.get("memory_activations_per_sample"),
                "largest_batch": facts.get("memory_largest_batch"),
                "limit_source": facts.get("memory_limit_source"), "free_at_start": facts.get("memory_free_at_start"),
                "room": facts.get("memory_room"), "peak_at_largest_input": facts.get("memory_peak_at_largest_input"),
                "fix_savings": {name[len("memory_saving_"):]: value for name, value in facts.items()
                                if name.startswith("memory_saving_") and value is not None}})
    return out


def _whatif(diagnosis: Diagnosis) -> Optional[dict[str, Any]]:
    w = diagnosis.whatif
    if w is None:
        return None
    return {"budget_s": w.budget, "elapsed_s": round(w.elapsed, 1), "trials": len(w.trials),
            "combined": w.combined.to_dict() if w.combined else None, "stopped": w.stopped,
            "saved_in": "diagnosis.json"}


def _ranks(diagnosis: Diagnosis) -> list[dict]:
    """Every rank of a job, as its figures hold it (facts/job.py); the lead's why in words beside it."""
    job = diagnosis.job
    if job is None:
        return []
    from .job import why_text

    why = why_text(job)
    lead = job.straggler if job.straggler is not None else job.slowest
    return [{"rank": r.rank, "step_time_s": r.step_time, "steady_steps": r.steady_steps,
             "phases_s": dict(r.phases), "collective_time_s": r.collective_time,
             "collective_wait_s": r.collective_wait, "collective_transfer_s": r.collective_transfer,
             "status": r.status, "error": r.error, "verdict": r.verdict, "straggler": r.straggler,
             "slowest": r.slowest, "why_slowest": why if r.rank == lead else None, "files": list(r.files)}
            for r in job.ranks]
