"""A rule's [let] table: named expressions every other key reads as it reads a fact.

small-batch-overhead asked "not accumulating tiny micro-batches?" in some sixteen places, and
launch-bound-small-ops wrote the arithmetic's lead over the calling cost three times; one edit could move one
copy and not the others. A let names it once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from trainprobe.engine import RuleFileError, apply_rules, load_rule_file, load_rules
from trainprobe.engine.evaluate import evaluate_rule, fact_context
from trainprobe.facts import compute_facts, facts_by_name

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.cases import CASES  # noqa: E402

_RULE = '''
id = "planted-let"
name = "A rule with lets"
category = "compute"
severity = "warning"
condition = "big and known(share)"
title = "{{ share_text }}: {{ 'big' if big else 'small' }}"
message = "step {{ step_time|secs }}"
advice = "{{ 'twice' if doubled > 0 else 'none' }}"
gain = "doubled"

[let]
doubled = "step_time * 2"
big = "doubled > opt.limit"
share = "compute_share"
share_text = "'share ' ~ (share|pct)"

[options]
limit = 0.0

[docs]
what = "w"
why = "w"
evidence = "w"
fix = "w"
options = "- `limit` (0.0): w"
references = ["https://example.org"]
'''


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "planted-let.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_lets_are_read_in_order_by_the_condition_texts_and_gain(tmp_path):
    rule = load_rule_file(_write(tmp_path, _RULE))
    assert [name for name, _ in rule.lets] == ["doubled", "big", "share", "share_text"]
    record = CASES["small-batch-overhead"].bad()
    finding = next(f for f in apply_rules(record, [tmp_path]).findings if f.id == "planted-let")
    assert finding.title.startswith("share ") and finding.title.endswith(": big")
    assert finding.advice == "twice"
    assert finding.gain.seconds_per_step and finding.gain.seconds_per_step > 0
    # The lets are the rule's own: the context the rules of a diagnosis share does not keep them.
    facts = facts_by_name(compute_facts(record))
    base = fact_context(facts)
    assert evaluate_rule(rule, facts, base=base) is not None
    assert not {"doubled", "big", "share", "share_text"} & set(base)


@pytest.mark.parametrize("let, problem", [
    ("step_time = \"1\"", "'step_time' must be a new lowercase name"),  # a fact's name
    ("Doubled = \"1\"", "'Doubled' must be a new lowercase name"),
    ("known = \"1\"", "'known' must be a new lowercase name"),  # a helper's
    ("early = \"later * 2\"\nlater = \"1\"", "unknown name: later"),  # only lets above it
    ("bad = \"no_such_fact + 1\"", "unknown name: no_such_fact"),
])
def test_a_bad_let_names_its_line(tmp_path, let, problem):
    text = _RULE.replace('doubled = "step_time * 2"', let + '\ndoubled = "step_time * 2"')
    with pytest.raises(RuleFileError) as caught:
        load_rule_file(_write(tmp_path, text))
    assert problem in str(caught.value)
    line = int(str(caught.value).split(":")[1])
    assert text.splitlines()[line - 1].split("=")[0].strip() == let.split("\n")[0].split("=")[0].strip()


def test_a_let_that_fails_on_a_run_is_a_rule_error_at_its_line(tmp_path):
    text = _RULE.replace('doubled = "step_time * 2"', 'doubled = "step_time / 0"')
    rule_file = _write(tmp_path, text)
    diagnosis = apply_rules(CASES["small-batch-overhead"].bad(), [tmp_path])
    error = next(e for e in diagnosis.rule_errors if "planted-let" in e)
    assert error.startswith(f"{rule_file}:") and "ZeroDivisionError" in error and "in its let doubled" in error
    line = int(error[len(f"{rule_file}:"):].split(":")[0])
    assert text.splitlines()[line - 1].startswith("doubled = ")  # the let's own line, not its table's


def test_the_rules_that_repeated_a_predicate_name_it_once():
    rules = {r.id: r for r in load_rules()[0]}
    text = Path(rules["small-batch-overhead"].source).read_text(encoding="utf-8")
    assert text.count("grad_accumulation > 1 and samples_per_step > opt.max_batch") == 1
    text = Path(rules["launch-bound-small-ops"].source).read_text(encoding="utf-8")
    assert text.count("dispatch_share - dispatch_share") == 1
    for rule_id in ("small-batch-overhead", "launch-bound-small-ops"):
        assert "model_ops_per_step if known(model_ops_per_step) else ops_per_step" in \
            Path(rules[rule_id].source).read_text(encoding="utf-8")
