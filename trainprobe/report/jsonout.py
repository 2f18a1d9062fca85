"""``trainprobe diagnose --json``: the diagnosis for machines (CI, course dashboards).

The keys below are a promise to scripts: add keys, never rename or remove one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..findings import Diagnosis
from ..record import RunRecord

__all__ = ["json_summary", "JSON_SUMMARY_VERSION"]

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
                         "text": f.gain.text, "base_s": f.gain.base,
                         "interval": [f.gain.low, f.gain.high] if f.gain.low is not None else None},
                "evidence": [{"label": e.label, "value": e.value, "threshold": e.threshold, "fact": e.fact}
                             for e in f.evidence],
                "verification": f.verification.to_dict() if f.verification else None,
            }
            for f in diagnosis.findings
        ],
        "outcome": {"status": o.status, "exit_code": o.exit_code, "signal": o.signal,
                    "exception_type": o.exception_type, "reason": o.reason, "duration_s": o.duration,
                    "oom": o.oom},
        "steps_measured": len(record.steps),
        "whatif": _whatif(diagnosis),
        "rule_errors": list(diagnosis.rule_errors),
        "not_judged": list(diagnosis.not_judged),
        "source": "trace" if record.profiler.source == "trace" else "probe",
        "ranks": [{"rank": r.rank, "step_time_s": r.step_time, "gpu_idle_share": r.gpu_idle_share,
                   "exposed_communication_share": r.exposed_communication_share,
                   "data_wait_share": r.data_wait_share, "verdict": r.verdict, "slowest": r.slowest,
                   "why_slowest": r.why_slowest, "files": list(r.files)} for r in record.ranks],
        "report_path": str(report_path) if report_path is not None else None,
        "record_path": str(record_path) if record_path is not None else None,
    }


def _whatif(diagnosis: Diagnosis) -> Optional[dict[str, Any]]:
    w = diagnosis.whatif
    if w is None:
        return None
    return {"budget_s": w.budget, "elapsed_s": round(w.elapsed, 1), "trials": len(w.trials),
            "combined": w.combined.to_dict() if w.combined else None, "stopped": w.stopped,
            "saved_in": "diagnosis.json"}
