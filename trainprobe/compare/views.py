"""A comparison as people read it: every number of a :class:`Comparison` formatted, never computed.

The terminal table, the HTML page and the JSON line all take their figures
from the one frozen comparison; this module only chooses words and units.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import display
from ..report.sections import CATEGORY_TEXT, PHASES as PHASE_LABELS, STATUS_TEXT
from .compare import CandidateResult, Comparison, RunSummary
from .fail_if_slower import GateResult
from .losses import LOSS_TOLERANCE, NO_LOSS_REASON

__all__ = ["throughput_unit", "speedup_text", "run_row", "slow_reason", "headline", "interval_text", "phase_rows", "setting_rows",
           "finding_rows", "loss_text", "json_view", "PHASE_TEXT"]

PHASE_TEXT = {field: label for field, label, _color in PHASE_LABELS}


def throughput_unit(c: Comparison) -> str:
    return "samples/s" if c.basis == "samples" else "steps/s"


def _throughput(c: Comparison, run: RunSummary) -> Optional[float]:
    return run.samples_per_second if c.basis == "samples" else run.steps_per_second


def speedup_text(value: float) -> str:
    """A speed-up with two decimals (1.30×): the interval beside it is read to the same precision."""
    return f"{value:.2f}×"


def interval_text(cand: CandidateResult) -> str:
    return f"{speedup_text(cand.speedup)} ({cand.low:.2f}–{cand.high:.2f})"


def verdict_text(run: RunSummary) -> str:
    label = CATEGORY_TEXT.get(run.verdict, run.verdict)
    return label + (" (borderline)" if run.borderline else "")


def run_row(c: Comparison, run: RunSummary) -> dict[str, Any]:
    cand = next((x for x in c.candidates if x.label == run.label), None)
    status = "" if not run.crashed else STATUS_TEXT.get(run.status, (run.status,))[0]
    return {
        "label": run.label, "baseline": run is c.baseline,
        "step_time": display.seconds(run.step_time), "step_time_median": display.seconds(run.step_time_median),
        "throughput": display.number(_throughput(c, run)), "batch": display.number(run.samples_per_step),
        "mfu": display.share(run.mfu, 1) + (f" of {run.peak_dtype} peak" if run.mfu is not None and run.peak_dtype else ""),
        "mfu_short": display.share(run.mfu, 1),
        "steady_steps": run.steady_steps,
        "speedup": "baseline" if cand is None else interval_text(cand),
        "conclusion": "" if cand is None else cand.conclusion,
        "verdict": verdict_text(run), "verdict_css": run.verdict, "headline": run.headline,
        "why": _why(run), "status": status, "slow": run.slow_in_class, "script": run.script, "path": run.path,
    }


def _why(run: RunSummary) -> str:
    """The finding the verdict names, if it names one."""
    primary = next((f for f in run.findings if f.id == run.primary_finding), None)
    return primary.title if primary is not None else ""


def headline(c: Comparison, cand: CandidateResult) -> str:
    """One sentence, such as: optimized is 1.30× faster than unoptimized (95% interval 1.25–1.35×, in steps/s)."""
    base = c.baseline.label
    span = f"95% interval {cand.low:.2f}–{cand.high:.2f}×, in {throughput_unit(c)}"
    if cand.conclusion == "faster":
        return f"{cand.label} is {speedup_text(cand.speedup)} faster than {base} ({span})"
    if cand.conclusion == "slower":
        return f"{cand.label} is slower than {base}: {speedup_text(cand.speedup)} its speed ({span})"
    return (f"{cand.label} vs {base}: {speedup_text(cand.speedup)}, inconclusive ({span}: the interval "
            "holds 1, no difference shown)")


def slow_reason(c: Comparison, run: RunSummary) -> str:
    """Why a run of a class view is slow: its verdict, and what differs from the baseline."""
    cand = next((x for x in c.candidates if x.label == run.label), None)
    text = run.headline
    if cand is None:
        return text
    most = next((p for p in phase_rows(cand) if p["most"]), None)
    if most is not None:
        text += f" Against {c.baseline.label}, {most['phase']} changed most ({most['delta']} per step)"
        settings = setting_rows(cand)
        text += ("; settings that differ: " + "; ".join(f"{s['label']} {s['baseline']} → {s['candidate']}"
                                                         for s in settings) if settings else "; no setting differs")
        text += "."
    return text


def phase_rows(cand: CandidateResult) -> list[dict[str, Any]]:
    rows = []
    for p in cand.phases:
        if not p.baseline and not p.candidate:
            continue
        delta = "" if p.delta is None else ("+" if p.delta > 0 else "−" if p.delta < 0 else "") + \
            display.seconds(abs(p.delta))
        rows.append({"phase": PHASE_TEXT.get(p.phase, p.phase), "baseline": display.seconds(p.baseline),
                     "candidate": display.seconds(p.candidate), "delta": delta,
                     "baseline_share": display.share(p.baseline_share),
                     "candidate_share": display.share(p.candidate_share), "most": p.phase == cand.changed_most})
    return rows


def _value(value: Any, unit: str) -> str:
    if isinstance(value, str) and value == "":
        return "none"
    return display.by_unit(value, unit)


def setting_rows(cand: CandidateResult) -> list[dict[str, str]]:
    return [{"name": s.name, "label": s.label, "baseline": _value(s.baseline, s.unit),
             "candidate": _value(s.candidate, s.unit)} for s in cand.settings_changed]


def finding_rows(c: Comparison, cand: CandidateResult) -> dict[str, list[dict[str, str]]]:
    titles = {f.id: f for run in (c.baseline, c.run(cand.label)) for f in run.findings}
    def rows(ids):
        return [{"id": i, "title": titles[i].title, "severity": titles[i].severity} for i in ids]
    return {"resolved": rows(cand.resolved), "new": rows(cand.new), "persisting": rows(cand.persisting)}


def loss_text(c: Comparison, cand: CandidateResult) -> str:
    base, run = c.baseline.loss, c.run(cand.label).loss
    if base is None and run is None:
        return f"loss not recorded for either run ({NO_LOSS_REASON})"
    if base is None or run is None:
        missing = c.baseline.label if base is None else cand.label
        return f"loss not recorded for {missing}, so it cannot be compared ({NO_LOSS_REASON})"
    text = (f"loss over the second half of the window: {run.late_mean:.4g} vs {base.late_mean:.4g} in the baseline "
            f"({run.n} and {base.n} losses)")
    if cand.learns_differently:
        return text + f": faster or not, it learns differently (more than {LOSS_TOLERANCE:.0%} apart)"
    return text + f": within {LOSS_TOLERANCE:.0%}"


def _candidate_json(cand: CandidateResult) -> dict[str, Any]:
    return {
        "label": cand.label, "speedup": cand.speedup, "interval": [cand.low, cand.high],
        "conclusion": cand.conclusion, "changed_most": cand.changed_most,
        "phases": [p.to_dict() for p in cand.phases],
        "findings": {"resolved": list(cand.resolved), "new": list(cand.new), "persisting": list(cand.persisting)},
        "settings_changed": [s.to_dict() for s in cand.settings_changed],
        "flags": list(cand.flags), "learns_differently": cand.learns_differently,
    }


def json_view(c: Comparison, gate_result: Optional[GateResult], page: Optional[str]) -> dict[str, Any]:
    """The ``--json`` line. The top-level speed-up, interval, conclusion, settings and flags are the first
    candidate's; ``candidates`` holds every candidate's."""
    first = _candidate_json(c.candidates[0])
    return {
        "version": c.version, "baseline": c.baseline.label, "basis": c.basis, "throughput_unit": throughput_unit(c),
        "speedup": first["speedup"], "interval": first["interval"], "conclusion": first["conclusion"],
        "confidence": c.confidence, "resamples": c.resamples,
        "verdicts": {r.label: r.verdict for r in c.runs},
        "settings_changed": first["settings_changed"], "flags": first["flags"],
        "candidates": [_candidate_json(x) for x in c.candidates],
        "runs": [{"label": r.label, "path": r.path, "status": r.status, "crashed": r.crashed,
                  "steady_steps": r.steady_steps, "step_time_s": r.step_time,
                  "step_time_median_s": r.step_time_median, "steps_per_second": r.steps_per_second,
                  "samples_per_second": r.samples_per_second, "verdict": r.verdict,
                  "findings": [f.id for f in r.findings], "slow_in_class": r.slow_in_class,
                  "loss": r.loss.to_dict() if r.loss else None} for r in c.runs],
        "ranking": list(c.ranking), "notes": list(c.notes),
        "gate": None if gate_result is None else {
            "fail_if_slower_percent": gate_result.threshold_percent, "failed": gate_result.failed,
            "failing": list(gate_result.failing), "message": gate_result.message},
        "page": page,
    }
