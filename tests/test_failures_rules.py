"""Failure paths in the rule stage: a slow rule, a template that breaks, and Ctrl-C while the
rules run. Each ends as a clear line (the rule's file and line) or exit 130, and the report is
still written."""

from __future__ import annotations

import functools
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trainprobe.api import analyze
from trainprobe.record import RunRecord

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "data" / "runs" / "clean_mlp.cpu.run.json"
BASE_RULE = ROOT / "rules" / "adam-with-l2-weight-decay.toml"
SLOW_CONDITION = " and ".join(["([0] * 900000) == ([0] * 900000)"] * 50)


@functools.lru_cache(maxsize=1)
def _values() -> dict:
    from trainprobe.facts import compute_facts, facts_by_name

    return facts_by_name(compute_facts(RunRecord.load(RECORD)))


def _rule(folder: Path, rule_id: str, condition: str, message: str = "") -> Path:
    """A rule file made from a built-in one, with its id, condition and (optionally) message replaced."""
    text = BASE_RULE.read_text().replace('id = "adam-with-l2-weight-decay"', f'id = "{rule_id}"')
    text = re.sub(r"^condition = .*$", lambda m: f"condition = '{condition}'", text, count=1, flags=re.M)
    if message:
        text = re.sub(r"^message = '''\n.*?\n'''", lambda m: f"message = '''\n{message}\n'''", text, count=1,
                      flags=re.M | re.S)
    folder.mkdir(exist_ok=True)
    path = folder / f"{rule_id}.toml"
    path.write_text(text)
    return path


def test_a_rule_past_its_time_budget_is_a_rule_error_with_its_file_and_line(tmp_path, monkeypatch):
    """The budget is CPU time, checked at each operator. With the real clock this test failed in two CI runs, both
    beside other work, the error naming the snippet's line: the condition (0.32 s of CPU here, 100 checks) came in
    under 0.05 s there, for a reason not found. A fake thread clock that advances 10 ms at each reading puts the
    deadline inside the condition on any machine."""
    from trainprobe.engine import expr, load_rule_file
    from trainprobe.engine.evaluate import RuleRuntimeError, evaluate_rule

    readings = iter(range(10**6))
    monkeypatch.setattr(expr.time, "thread_time", lambda: next(readings) * 0.010)
    path = _rule(tmp_path / "rules", "slow-rule", SLOW_CONDITION)
    with pytest.raises(RuleRuntimeError, match="time budget") as caught:
        evaluate_rule(load_rule_file(path), _values(), budget=0.05)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("condition"))
    assert str(caught.value).startswith(f"{path}:{line}: rule slow-rule failed on this run: TimeoutError")


def test_a_garbage_collection_during_a_rule_is_not_the_rules_time(monkeypatch):
    """A full collection in a large process is paid by whichever allocation sets it off: a rule that did nothing
    wrong failed its budget so in the test suite under load (big_model_small_batch's record, a different rule each
    time). A fake thread clock that a collection moves on by a second: the rule's clock does not count it."""
    import gc

    from trainprobe.engine import expr

    clock = [0.0]
    monkeypatch.setattr(expr.time, "thread_time", lambda: clock[0])

    def a_second_of_collecting(phase, _info):
        if phase == "start":
            clock[0] += 1.0

    gc.callbacks.append(a_second_of_collecting)  # after trainprobe's own: it reads the clock before this moves it
    try:
        with expr.time_budget(0.5):
            gc.collect()
            assert clock[0] >= 1.0
            expr._check_time()  # within budget: the collection's second is not the rule's
            clock[0] += 0.6
            with pytest.raises(TimeoutError, match="time budget"):
                expr._check_time()
    finally:
        gc.callbacks.remove(a_second_of_collecting)


@pytest.mark.slow
def test_a_slow_rule_becomes_a_rule_error_with_its_file_and_line_and_the_others_run(tmp_path):
    path = _rule(tmp_path / "rules", "slow-rule", SLOW_CONDITION)
    started = time.monotonic()
    diagnosis = analyze(RunRecord.load(RECORD), [tmp_path / "rules"])
    took = time.monotonic() - started
    errors = [e for e in diagnosis.rule_errors if "slow-rule" in e]
    assert len(errors) == 1, diagnosis.rule_errors
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("condition"))
    assert errors[0].startswith(f"{path}:{line}: ") and "time budget" in errors[0]
    assert diagnosis.verdict.category == "compute"  # the built-in rules ran and decided as ever
    assert took < 10, took  # unbudgeted, this rule alone took 49 s over the stability resamples


def test_a_broken_message_template_names_the_messages_line_not_the_conditions(tmp_path):
    from trainprobe.engine import load_rule_file
    from trainprobe.engine.evaluate import evaluate_rules

    path = _rule(tmp_path / "rules", "bad-message", "true",
                 message="The first line is fine.\nThis one divides by zero: {{ 1 / 0 }}.")
    findings, errors = evaluate_rules([load_rule_file(path)], _values())
    assert not findings and len(errors) == 1, errors
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "divides by zero" in text)
    assert errors[0].startswith(f"{path}:{line}: ") and "in its message (line 2 of the text)" in errors[0]
    assert "ZeroDivisionError" in errors[0]


@pytest.mark.slow
def test_ctrl_c_while_the_rules_run_still_writes_the_report_and_exits_130(tmp_path):
    for i in range(8):  # about 2 s each (their budget): the rule stage takes ~16 s unless interrupted
        _rule(tmp_path / "rules", f"slow-rule-{i}", " and ".join(["([0] * 900000) == ([0] * 900000)"] * 14))
    record = tmp_path / "run" / "run.json"
    record.parent.mkdir()
    shutil.copy(RECORD, record)
    proc = subprocess.Popen([sys.executable, "-m", "trainprobe", "report", str(record), "--rules",
                             str(tmp_path / "rules")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6)  # start-up and loading take ~2 s: by now the rules are running
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in out + err
    assert "Ctrl-C during the rules" in err
    assert "Ctrl-C stopped the rules before they finished" in out
    report = (record.parent / "report.html").read_text()
    assert "Ctrl-C stopped the rules" in report
    assert RunRecord.load(record).steps  # the record is untouched
