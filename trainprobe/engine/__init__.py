"""The rule engine: rules/*.toml applied to a run record's facts -> a Diagnosis.

``apply_rules(record)`` never raises on a broken rule file or an odd record: a
rule file that does not load, or a rule that fails on this record, becomes a
line in ``Diagnosis.rule_errors`` ("path:line: problem") and the others run.
"""

from __future__ import annotations

from .apply import apply_rules
from .evaluate import evaluate_rule
from .framing import framed
from .job import judge_job
from .rulefiles import RuleFileError, load_rule_file, load_rules
from .rule import DOC_SECTIONS, Rule
from .verdict import breakdown, larger_lever_below, rank_findings

__all__ = ["Rule", "RuleFileError", "DOC_SECTIONS", "load_rules", "load_rule_file", "apply_rules", "judge_job", "framed",
           "evaluate_rule", "rank_findings", "larger_lever_below", "breakdown"]
