"""The report's banners come from findings: the rule decides, and a --rules override moves both.

The first screen warns when other programs competed for the CPU. That warning is the
outside-cpu-load finding's, never a second copy of its thresholds in the report, so a rule file
that changes the thresholds changes the finding and the banner together.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from trainprobe.engine import apply_rules
from trainprobe.report.timelines import OUTSIDE_LOAD_RULE, hero_chart
from trainprobe.resources import rules_dir

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.cases import CASES  # noqa: E402

CASE = CASES[OUTSIDE_LOAD_RULE]


def _override(folder: Path, **options) -> Path:
    """The built-in outside-cpu-load rule with some options changed, in a --rules folder."""
    text = (rules_dir() / f"{OUTSIDE_LOAD_RULE}.toml").read_text(encoding="utf-8")
    for name, value in options.items():
        start = text.index(f"\n{name} = ") + 1
        end = text.index("#", start)
        text = text[:start] + f"{name} = {value!r}  " + text[end:]
    (folder / f"{OUTSIDE_LOAD_RULE}.toml").write_text(text, encoding="utf-8")
    return folder


def _banner(record, rule_dirs=()):
    diagnosis = apply_rules(record, list(rule_dirs))
    fired = OUTSIDE_LOAD_RULE in {f.id for f in diagnosis.findings}
    return fired, hero_chart(record, diagnosis)["noise"]


def test_the_banner_is_the_findings_title():
    record = CASE.bad()
    diagnosis = apply_rules(record)
    (finding,) = [f for f in diagnosis.findings if f.id == OUTSIDE_LOAD_RULE]
    banner = hero_chart(record, diagnosis)["noise"]
    assert banner.lower().startswith(finding.title.lower()) and "slower and noisier" in banner
    assert _banner(CASE.good()) == (False, None)


def test_a_rules_override_that_silences_the_rule_silences_the_banner(tmp_path):
    folder = _override(tmp_path, min_cores=64.0, min_steal=1.5)  # no load this run had reaches these
    assert _banner(CASE.bad(), [folder]) == (False, None)


def test_a_rules_override_that_makes_the_rule_fire_raises_the_banner(tmp_path):
    """The quiet run's load (0.1 of 2 cores) is below the built-in thresholds and above these: the
    banner follows the rule, not a threshold of its own."""
    folder = _override(tmp_path, min_cores=0.05, min_share=0.01)
    fired, banner = _banner(CASE.good(), [folder])
    assert fired and banner and "Other programs kept" in banner
