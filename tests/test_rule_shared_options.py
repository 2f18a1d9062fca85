"""Shared rule options: rules that must agree on thresholds name one set (rules/shared/NAME.toml).

storage-bound-input and dataloader-workers-waiting split a waiting input pipeline between them
(storage reads measured, or not): the thresholds that draw the line are written once, and a
``--rules`` folder's own set moves both rules together.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

import pytest

from trainprobe.engine import RuleFileError, apply_rules, load_rule_file, load_rules
from trainprobe.engine.docs import rule_docs_text
from trainprobe.engine.rulefiles import SHARED_DIR, shared_option_sets
from trainprobe.resources import rules_dir

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.cases import CASES  # noqa: E402

PAIR = ("storage-bound-input", "dataloader-workers-waiting")
SHARED_FILE = rules_dir() / SHARED_DIR / "input-waiting.toml"
SHARED = tomllib.loads(SHARED_FILE.read_text(encoding="utf-8"))["options"]


def _by_id(extra=()):
    rules, errors = load_rules(extra)
    assert errors == []
    return {r.id: r for r in rules}


def _write_set(folder: Path, **options) -> None:
    (folder / SHARED_DIR).mkdir(parents=True, exist_ok=True)
    body = "\n".join(f"{name} = {value!r}" for name, value in options.items())
    (folder / SHARED_DIR / "input-waiting.toml").write_text(f"[options]\n{body}\n", encoding="utf-8")


def test_both_input_rules_read_the_set_and_neither_copies_it():
    rules = _by_id()
    for rule_id in PAIR:
        rule = rules[rule_id]
        assert rule.options_from == "input-waiting"
        assert {name: rule.options[name] for name in SHARED} == SHARED
        assert set(rule.shared_options) == set(SHARED)
        own = tomllib.loads(Path(rule.source).read_text(encoding="utf-8")).get("options", {})
        assert not set(own) & set(SHARED), f"{rule_id} copies {set(own) & set(SHARED)} by hand"
        docs = rule.docs.options
        assert all(f"`{name}`" in docs for name in SHARED), f"{rule_id}: a shared option is undocumented"


@pytest.mark.slow  # over a second: the quick loop stays under its minute
def test_a_user_set_moves_both_rules_together(tmp_path):
    """A --rules folder's shared/input-waiting.toml replaces the built-in set for both rules: here
    one that no batch-making can meet, so neither rule fires on the records that trigger it."""
    records = {rule_id: CASES[rule_id].bad() for rule_id in PAIR}
    for rule_id, record in records.items():
        assert rule_id in {f.id for f in apply_rules(record).findings}
    _write_set(tmp_path, max_fetch_cpu=0.0, max_machine_busy=0.85, min_iowait=1.0, min_read_share=1.0)
    rules = _by_id([tmp_path])
    for rule_id in PAIR:
        assert rules[rule_id].options["max_fetch_cpu"] == 0.0 and rules[rule_id].options["min_iowait"] == 1.0
    for rule_id, record in records.items():
        assert rule_id not in {f.id for f in apply_rules(record, [tmp_path]).findings}
    # The built-in set is back for a diagnosis without the folder: the compiled rules are not shared.
    assert _by_id()[PAIR[0]].options["max_fetch_cpu"] == SHARED["max_fetch_cpu"]


def test_a_rules_own_options_override_the_set(tmp_path):
    text = Path(_by_id()["dataloader-workers-waiting"].source).read_text(encoding="utf-8")
    text = text.replace("[options]\n", "[options]\nmin_iowait = 0.5\n", 1)
    (tmp_path / "dataloader-workers-waiting.toml").write_text(text, encoding="utf-8")
    rules = _by_id([tmp_path])
    tuned = rules["dataloader-workers-waiting"]
    assert tuned.options["min_iowait"] == 0.5 and "min_iowait" not in tuned.shared_options
    assert tuned.options["max_fetch_cpu"] == SHARED["max_fetch_cpu"]
    assert rules["storage-bound-input"].options["min_iowait"] == SHARED["min_iowait"]
    assert "min_iowait = 0.5\n" in rule_docs_text(tuned) and "(shared set input-waiting)" in rule_docs_text(tuned)


def test_an_unknown_set_is_an_error_at_its_line(tmp_path):
    text = Path(_by_id()["storage-bound-input"].source).read_text(encoding="utf-8")
    text = text.replace('options_from = "input-waiting"', 'options_from = "input-wating"')
    path = tmp_path / "storage-bound-input.toml"
    path.write_text(text, encoding="utf-8")
    line = text.splitlines().index('options_from = "input-wating"') + 1
    with pytest.raises(RuleFileError) as caught:
        load_rule_file(path)
    assert caught.value.line == line and "unknown shared option set 'input-wating'" in caught.value.problem
    assert "input-waiting" in caught.value.problem  # the sets it could have named
    _, errors = load_rules([tmp_path])
    assert [e for e in errors if e.startswith(f"{path}:{line}: options_from")]


@pytest.mark.parametrize("text, problem", [
    ("about = \"no options\"\n", "needs an [options] table"),
    ("thresholds = 1\n[options]\nmin_iowait = 0.1\n", "unknown key 'thresholds'"),
    ("[options\n", "not valid TOML"),
])
def test_a_broken_set_is_reported_with_its_file(tmp_path, text, problem):
    (tmp_path / SHARED_DIR).mkdir()
    (tmp_path / SHARED_DIR / "input-waiting.toml").write_text(text, encoding="utf-8")
    sets, errors = shared_option_sets([rules_dir(), tmp_path])
    assert len(errors) == 1 and str(tmp_path / SHARED_DIR / "input-waiting.toml") in errors[0] and problem in errors[0]
    assert sets["input-waiting"].options == SHARED  # the broken one replaces nothing


def test_a_rule_file_loaded_alone_finds_the_built_in_sets():
    rule = load_rule_file(rules_dir() / "storage-bound-input.toml")
    assert rule.options_from == "input-waiting" and rule.options["min_read_share"] == SHARED["min_read_share"]


def test_shared_sets_are_not_rules():
    rules = _by_id()
    assert not set(rules) & {p.stem for p in (rules_dir() / SHARED_DIR).glob("*.toml")}
