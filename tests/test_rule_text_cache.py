"""The rule texts' checks kept between runs (engine/textcache.py): a run that reads them back judges
exactly as one that checked every text, and nothing kept can let a bad text through."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import recorded
from trainprobe.engine import expr, textcache
from trainprobe.engine.expr import RuleSyntaxError, compile_expression, compile_template

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("step_time", "input_wait_share")


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A cache folder of the test's own, read afresh (the module keeps what it read in memory)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TRAINPROBE_NO_CACHE", raising=False)
    _reread(monkeypatch)
    return tmp_path / "cache" / "trainprobe"


def _reread(monkeypatch):
    monkeypatch.setattr(textcache, "_entries", None)
    monkeypatch.setattr(textcache, "_added", False)


def test_a_kept_expression_evaluates_as_a_checked_one(fresh_cache, monkeypatch):
    source = "input_wait_share >= 0.3 and step_time * 2 > 0.01"
    checked = compile_expression(source, NAMES)
    expr.keep_checked_texts()
    assert len(list(fresh_cache.glob("rule-texts-*.marshal"))) == 1
    _reread(monkeypatch)
    kept = compile_expression(source, NAMES)
    assert textcache._entries and not textcache._added  # read back, not checked again
    for context in ({"input_wait_share": 0.5, "step_time": 0.1}, {"input_wait_share": 0.1, "step_time": 0.1}, {}):
        assert kept.evaluate(context) == checked.evaluate(context)
    assert kept.names == checked.names == ("input_wait_share", "step_time")


def test_a_text_checked_against_other_names_is_checked_again(fresh_cache, monkeypatch):
    compile_expression("input_wait_share > 0.3", NAMES)
    compile_template("{{ input_wait_share|pct }}", NAMES)
    expr.keep_checked_texts()
    _reread(monkeypatch)
    with pytest.raises(RuleSyntaxError, match="unknown name"):
        compile_expression("input_wait_share > 0.3", ("step_time",))
    with pytest.raises(RuleSyntaxError, match="unknown name"):
        compile_template("{{ input_wait_share|pct }}", ("step_time",))


def test_a_failing_text_is_never_kept(fresh_cache):
    with pytest.raises(RuleSyntaxError):
        compile_expression("input_wait_share >", NAMES)
    with pytest.raises(RuleSyntaxError):
        compile_expression("x.__class__", NAMES)
    assert not textcache._added
    expr.keep_checked_texts()
    assert not fresh_cache.exists()


def test_a_broken_cache_file_only_means_checking_again(fresh_cache, monkeypatch):
    compile_expression("step_time > 1", NAMES)
    expr.keep_checked_texts()
    (path,) = fresh_cache.glob("rule-texts-*.marshal")
    path.write_bytes(b"\x00not marshal at all")
    _reread(monkeypatch)
    assert compile_expression("step_time > 1", NAMES).evaluate({"step_time": 2}) is True
    assert textcache._added  # checked again, and the file is written anew
    expr.keep_checked_texts()
    _reread(monkeypatch)
    compile_expression("step_time > 1", NAMES)
    assert not textcache._added


def test_an_unwritable_cache_folder_is_left_alone(tmp_path, monkeypatch, fresh_cache):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would go")
    compile_expression("step_time > 1", NAMES)
    expr.keep_checked_texts()  # no error: the next run checks again
    assert blocker.is_file()


@pytest.mark.slow  # three `trainprobe report` processes: 5 s of the quick loop's minute
def test_a_report_made_from_the_cache_is_the_one_made_without_it(tmp_path):
    """Three `trainprobe report` runs of one recorded run: the first checks every rule text and compiles
    the page's templates, keeping both in the cache folder; the second reads them back; the third has the
    cache off. The summaries and the HTML pages are the same."""
    record = tmp_path / "run.json"  # a copy: report writes diagnosis.json beside the record
    shutil.copy(recorded.RUNS_DIR / "imagefolder_main_process_decode.cpu.run.json", record)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("TRAINPROBE_NO_CACHE", None)

    def report(name: str, extra: dict) -> tuple[dict, str]:
        page = tmp_path / f"{name}.html"
        proc = subprocess.run([sys.executable, "-m", "trainprobe", "report", str(record), "-o", str(page), "--json"],
                              capture_output=True, text=True, env={**env, **extra}, cwd=ROOT, timeout=120)
        assert proc.returncode == 0, proc.stderr
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
        assert summary.pop("report_path") == str(page)
        return summary, page.read_text(encoding="utf-8").replace(str(page), "PAGE")

    first = report("first", {})
    kept = tmp_path / "cache" / "trainprobe"
    (texts,) = kept.glob("rule-texts-*.marshal")
    assert list((kept / "templates").glob("*.cache"))  # jinja's compiled pages
    written = texts.stat().st_mtime_ns
    second = report("second", {})
    assert texts.stat().st_mtime_ns == written  # every text was found kept: nothing new to write
    off = report("off", {"TRAINPROBE_NO_CACHE": "1"})
    assert first[0]["findings"] and first == second == off
