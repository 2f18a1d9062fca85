"""The rules applied to one record: its facts, the findings ranked by recoverable time, the verdict and
how firmly the measured steps support it. A rule file that does not load, or a rule that fails on this
record, becomes a line in ``Diagnosis.rule_errors`` ("path:line: problem") and the others run."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from ..figures import JobFigures
from ..findings import Diagnosis, Verdict
from ..facts import UNKNOWN_IN_A_TRACE, compute_facts, facts_by_name
from ..facts.window import firm_steps
from ..record import RunRecord
from .evaluate import evaluate_rules, with_gain_interval
from .framing import framed
from .rulefiles import load_rules
from .stability import DECISIVE, stability
from .verdict import make_verdict, rank_findings, with_stability, with_trace_cut

__all__ = ["apply_rules"]


def apply_rules(record: RunRecord, extra_rule_dirs: Sequence[Path] = (), job: Optional[JobFigures] = None
                ) -> Diagnosis:
    """Facts, findings ranked by recoverable time, and the verdict for ``record``, with how firmly
    the measured steps support it (a bootstrap over the steady steps: engine/stability.py)."""
    facts = compute_facts(record, job)
    values = facts_by_name(facts)
    rules, errors = load_rules(extra_rule_dirs)
    spent: dict[str, float] = {}  # each rule's time, against its budget (engine/evaluate.py)
    findings, runtime_errors = evaluate_rules(rules, values, spent=spent)
    ranked = rank_findings(findings)

    def decide(facts_values: dict[str, object]):
        again, late_errors = evaluate_rules(rules, facts_values, render=False, spent=spent)
        runtime_errors.extend(late_errors)  # a rule that ran out of its budget here: said once
        again = rank_findings(again)
        return make_verdict(facts_values, again), again

    try:
        verdict = make_verdict(values, ranked)
        firmness = stability(record, values, verdict, decide)
        verdict = with_trace_cut(with_stability(verdict, firmness, values), values)
        if firmness is not None:  # the intervals rewrite the gains' texts: rank again to keep what ranking adds
            ranked = rank_findings([with_gain_interval(f, firmness.gains.get(f.id)) for f in ranked])
        ranked = _decisive(ranked, rules, values, firmness, verdict)
    except Exception as exc:  # pylint: disable=broad-except  # the findings are still worth showing
        verdict = Verdict(category="unknown", headline=f"No verdict: {exc}")
    diagnosis = Diagnosis(verdict=verdict, findings=tuple(ranked), facts=facts,
                          rule_errors=tuple(errors + runtime_errors), rules_evaluated=len(rules),
                          not_judged=_not_judged(rules, values, {f.id for f in ranked}), job=job)
    return framed(diagnosis)


def _decisive(ranked: list, rules, values: dict[str, object], firmness, verdict: Verdict) -> list:
    """On a short run (fewer than MIN_STEADY_STEPS steps), the findings that read the steps stand only
    when they are decisive, as the verdict does: fired on DECISIVE of the resamples of the steps.
    The verdict's own finding stays with it; the settings rules do not read the steps."""
    if firm_steps(values):
        return ranked
    by_id = {rule.id: rule for rule in rules}
    fired = firmness.fired if firmness is not None else {}

    def stands(f) -> bool:
        rule = by_id.get(f.id)
        return (rule is None or rule.without_steps or f.id == verdict.primary_finding
                or fired.get(f.id, 0.0) >= DECISIVE)
    return [f for f in ranked if stands(f)]


def _not_judged(rules, values: dict[str, object], fired: set[str]) -> tuple[str, ...]:
    """On a record read from a trace: the rules that stayed quiet only for want of a fact a trace
    cannot hold, each with the facts it lacked, so the report says what it could not know."""
    if not values.get("from_trace"):
        return ()
    out = []
    for rule in rules:
        if rule.id in fired or (rule.gpu_only and not values.get("cuda_used")):
            continue
        lacking = [n for n in rule.condition.names if n in UNKNOWN_IN_A_TRACE and values.get(n) is None]
        if lacking:
            out.append(f"{rule.id}: needs {', '.join(lacking)}")
    return tuple(out)
