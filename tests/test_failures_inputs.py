"""Failure paths of what the user gives trainprobe: a record that is not one, or is damaged or
newer, and an output folder that cannot be used. Each gets one clear sentence and its own exit
status, never a traceback, and nothing is written where it should not be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainprobe.cli import main
from trainprobe.probe.launch import default_out_dir
from trainprobe.record import SCHEMA_VERSION

RECORD = Path(__file__).parent / "data" / "runs" / "clean_mlp.cpu.run.json"
SCRIPT = Path(__file__).parent / "scripts" / "loop.py"


def _record(**changes) -> dict:
    data = json.loads(RECORD.read_text())
    data.update(changes)
    return data


def _bad_records() -> dict[str, tuple[object, str]]:
    damaged_step = _record()
    damaged_step["steps"][3] = "oops"
    return {
        "a list": ([1, 2, 3], "is not a trainprobe run record (a JSON list)"),
        "an empty object": ({}, "is not a trainprobe run record (an object without schema_version)"),
        "a string": ("str", "is not a trainprobe run record (a JSON str)"),
        "a newer schema": (_record(schema_version=99),
                           f"newer trainprobe (record schema 99; this version reads schema {SCHEMA_VERSION})"),
        "a null outcome": (_record(outcome=None), "damaged run record: RunRecord.outcome: null where an object is expected"),
        "a damaged step": (damaged_step, "damaged run record: RunRecord.steps: expected an object for Step, got str"),
    }


@pytest.mark.parametrize("case", list(_bad_records()))
def test_report_refuses_what_is_not_a_record_it_can_read(tmp_path, capsys, case):
    data, message = _bad_records()[case]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    code = main(["report", str(path)])
    out = capsys.readouterr()
    assert code == 2
    assert message in out.err and "Traceback" not in out.out + out.err
    assert not (tmp_path / "report.html").exists() and not (tmp_path / "summary.json").exists()


def test_a_gzipped_record_reads_as_the_plain_one_and_a_cut_off_one_is_refused(tmp_path, capsys):
    """Recorded runs may be kept gzipped (tests/data/runs/gpu/): `trainprobe report X.run.json.gz` reads
    one as the plain file; a file cut off mid-stream gets one sentence and exit 2."""
    import gzip

    from trainprobe.record import RunRecord

    packed = tmp_path / "whole" / "run.json.gz"
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(RECORD.read_bytes()))
    assert RunRecord.load(packed) == RunRecord.load(RECORD)
    assert main(["report", str(packed)]) == 0
    assert (packed.parent / "report.html").exists()
    cut = tmp_path / "cut" / "run.json.gz"
    cut.parent.mkdir()
    cut.write_bytes(packed.read_bytes()[: len(packed.read_bytes()) // 2])
    code = main(["report", str(cut)])
    out = capsys.readouterr()
    assert code == 2 and "cannot read" in out.err and "Traceback" not in out.out + out.err
    assert not (cut.parent / "report.html").exists()


def test_report_that_cannot_be_written_exits_non_zero(tmp_path, capsys):
    record = tmp_path / "run.json"
    record.write_text(RECORD.read_text())
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["report", str(record), "-o", str(blocker / "report.html")])
    out = capsys.readouterr()
    assert code == 1
    assert "the HTML report could not be written" in out.err and "Traceback" not in out.out + out.err


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_an_unusable_output_folder_is_refused_before_the_script_runs(tmp_path, capsys, where):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out_dir = blocker if where == "a file" else blocker / "run"
    code = main(["diagnose", "-q", "-o", str(out_dir), str(SCRIPT)])
    out = capsys.readouterr()
    assert code == 2
    assert out.err.startswith("trainprobe: ") and str(out_dir) in out.err and "Traceback" not in out.err
    assert out.out == ""  # the script never started


def test_two_runs_started_together_get_two_folders(tmp_path):
    first = default_out_dir(["train.py"], base=tmp_path)
    second = default_out_dir(["train.py"], base=tmp_path)
    assert first != second and first.is_dir() and second.is_dir()
    assert first.name.startswith("train-")


def test_broken_rule_files_are_named_on_the_terminal(tmp_path, capsys):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "broken.toml").write_text('id = "broken"\nname = "x"\ncategory = "host"\nseverity = "warning"\n'
                                       'condition = "step_time >"\n')
    record = tmp_path / "run.json"
    record.write_text(RECORD.read_text())
    code = main(["report", str(record), "--rules", str(rules)])
    out = capsys.readouterr().out
    assert code == 0  # the other rules ran and the report was written
    assert "1 rule file(s) could not be used" in out and f"{rules / 'broken.toml'}:" in out


_HOSTILE = '''id = "{id}"
name = "x"
category = "host"
severity = "warning"
title = "t"
message = "m"
advice = "a"
condition = "{condition}"
[docs]
what = "w"
why = "w"
evidence = "e"
fix = "f"
options = "o"
references = ["https://example.org"]
'''


def test_a_rule_cannot_take_the_tools_time_or_memory(tmp_path, capsys):
    """A huge power or a huge list in a rule's condition is a rule error with its file and line;
    the other rules run and the report is written, in seconds."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "pow.toml").write_text(_HOSTILE.format(id="pow", condition="((((10**60)**60)**60)**60)**60 > 0"))
    (rules / "rep.toml").write_text(_HOSTILE.format(id="rep", condition="([0] * 400000000)|length > 0"))
    record = tmp_path / "run.json"
    record.write_text(RECORD.read_text())
    code = main(["report", str(record), "--rules", str(rules)])
    out = capsys.readouterr().out
    assert code == 0 and (tmp_path / "report.html").exists()
    assert f"{rules / 'pow.toml'}:8:" in out and "more than 308 digits" in out
    assert f"{rules / 'rep.toml'}:8:" in out and "at most 1,000,000 items" in out


@pytest.mark.slow  # over a second: the quick loop stays under its minute
def test_an_ascii_terminal_gets_output_not_a_traceback(tmp_path):
    import os
    import subprocess
    import sys

    record = tmp_path / "run.json"
    record.write_text(RECORD.read_text())
    env = dict(os.environ, PYTHONIOENCODING="ascii", NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "trainprobe", "report", str(record)], capture_output=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"Traceback" not in proc.stdout + proc.stderr
    assert b"step time" in proc.stdout and b"?" in proc.stdout  # the middle dots degrade to '?'


@pytest.mark.parametrize("content", [bytes(range(256)), b"\xff\xfe[course]\n"])
def test_check_refuses_a_binary_expect_file_as_bad_input(tmp_path, capsys, content):
    expect = tmp_path / "course.toml"
    expect.write_bytes(content)
    code = main(["check", "--quick", "--expect", str(expect)])
    out = capsys.readouterr()
    assert code == 2  # bad input, as for every command: not 3, "Not ready"
    assert f"{expect} is not a text file" in out.err and "Traceback" not in out.out + out.err


def test_check_options_it_cannot_use_exit_2_not_3(tmp_path, capsys):
    assert main(["check", "--quick", "--data", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err
