"""The rule engine: rules/*.toml applied to a run record's facts -> a Diagnosis.

``diagnose(record)`` never raises on a broken rule file or an odd record: a
rule file that does not load, or a rule that fails on this record, becomes a
line in ``Diagnosis.rule_errors`` ("path:line: problem") and the others run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..findings import Diagnosis, Verdict
from ..facts import compute_facts, facts_by_name
from ..record import RunRecord
from .evaluate import evaluate_rule, evaluate_rules, with_gain_interval
from .rulefiles import RuleFileError, load_rule_file, load_rules
from .rule import DOC_SECTIONS, Rule
from .stability import stability
from .verdict import breakdown, make_verdict, rank_findings, with_stability

__all__ = ["Rule", "RuleFileError", "DOC_SECTIONS", "load_rules", "load_rule_file", "diagnose",
           "evaluate_rule", "rank_findings", "breakdown"]


def diagnose(record: RunRecord, extra_rule_dirs: Sequence[Path] = ()) -> Diagnosis:
    """Facts, findings ranked by recoverable time, and the verdict for ``record``, with how firmly
    the measured steps support it (a bootstrap over the steady steps: engine/stability.py)."""
    facts = compute_facts(record)
    values = facts_by_name(facts)
    rules, errors = load_rules(extra_rule_dirs)
    findings, runtime_errors = evaluate_rules(rules, values)
    ranked = rank_findings(findings)

    def decide(facts_values: dict[str, object]):
        again = rank_findings(evaluate_rules(rules, facts_values, render=False)[0])
        return make_verdict(facts_values, again), again

    try:
        verdict = make_verdict(values, ranked)
        firmness = stability(record, values, verdict, decide)
        verdict = with_stability(verdict, firmness)
        if firmness is not None:
            ranked = [with_gain_interval(f, firmness.gains.get(f.id)) for f in ranked]
    except Exception as exc:  # pylint: disable=broad-except  # the findings are still worth showing
        verdict = Verdict(category="unknown", headline=f"No verdict: {exc}")
    return Diagnosis(verdict=verdict, findings=tuple(ranked), facts=facts,
                     rule_errors=tuple(errors + runtime_errors), rules_evaluated=len(rules))
