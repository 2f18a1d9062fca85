"""trainprobe's one exit policy (trainprobe/exits.py): the mapping itself, and each command's statuses
through the CLI (compare's and check's own are pinned in test_compare_cli.py and test_check_cli.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from trainprobe import exits
from trainprobe.api import DiagnoseResult, verify
from trainprobe.cli import main
from trainprobe.findings import Diagnosis, Fact, Finding, Verdict
from trainprobe.record import Invocation, LoaderSettings, Outcome, RunRecord, Settings, Step

RUNS = Path(__file__).parent / "data" / "runs"
CLEAN = RUNS / "clean_mlp.cpu.run.json"


def _result(status="completed", code=0, interrupted=False, record_saved=True, report=True, whatif_failed=False):
    return SimpleNamespace(record=SimpleNamespace(outcome=SimpleNamespace(status=status, exit_code=code)),
                           interrupted=interrupted, whatif_failed=whatif_failed,
                           outputs_lost=not record_saved or not report)


@pytest.mark.parametrize("status, code, expected", [
    ("completed", 0, 0), ("stopped", 0, 0), ("failed", 3, 3), ("failed", None, 1), ("timeout", None, 124),
    ("interrupted", 130, 130), ("killed", -9, 137), ("killed", -15, 143), ("not_started", None, 2),
])
def test_diagnose_exits_as_the_script_ended(status, code, expected):
    assert exits.of_run(_result(status, code)) == expected


def test_diagnose_a_lost_output_or_a_failed_what_if_is_1_unless_the_script_says_more():
    assert exits.of_run(_result(report=False)) == exits.of_run(_result(record_saved=False)) == 1
    assert exits.of_run(_result(whatif_failed=True)) == 1
    assert exits.of_run(_result("failed", 4, report=False)) == 4
    assert exits.of_run(_result("failed", 4, interrupted=True)) == 130


def test_reading_commands_exit_by_what_they_wrote():
    assert exits.of_saved(_result("failed", 4)) == 0  # report on a failed run: the report is written
    assert exits.of_saved(_result(report=False)) == 1
    assert exits.of_saved(_result(whatif_failed=True)) == 1
    assert exits.of_saved(_result(interrupted=True, report=False)) == 130


def test_compare_and_check_results():
    gate = SimpleNamespace(failed=True)
    assert exits.of_comparison(SimpleNamespace(gate=gate, page=None)) == exits.FAILED_CHECK == 3
    assert exits.of_comparison(SimpleNamespace(gate=None, page=None)) == 1
    assert exits.of_comparison(SimpleNamespace(gate=SimpleNamespace(failed=False), page=Path("p"))) == 0
    assert exits.of_check(SimpleNamespace(result=SimpleNamespace(exit_code=0), problems=("x",))) == 1
    assert exits.of_check(SimpleNamespace(result=SimpleNamespace(exit_code=3), problems=("x",))) == 3
    summary = SimpleNamespace(rows=(), problems=())
    assert exits.of_class_page(SimpleNamespace(summary=summary, page=None)) == exits.BAD_INPUT == 2


# -- the what-if stage: measured, could not measure, Ctrl-C -------------------------------------------

def _input_bound(tmp_path) -> DiagnoseResult:
    script = tmp_path / "train.py"
    script.write_text("print('never run: the trials are faked')\n")
    record = RunRecord(
        invocation=Invocation(script=str(script), cwd=str(tmp_path), python_executable="python"),
        settings=Settings(dataloaders=(LoaderSettings(num_workers=0, used_in_training=True),)),
        steps=tuple(Step(index=i, duration=0.1, data_wait=0.08, phase="steady") for i in range(20)),
        outcome=Outcome(status="stopped", exit_code=0))
    record.save(tmp_path / "run.json")
    finding = Finding(id="dataloader-too-few-workers", name="w", category="input", severity="warning", title="t",
                      message="m", advice="a", fix_id="num_workers")
    diagnosis = Diagnosis(verdict=Verdict(category="input", headline="h"), findings=(finding,),
                          facts=(Fact("suggested_num_workers", 1),))
    return DiagnoseResult(record, tmp_path / "run.json", diagnosis, None, {})


def test_a_what_if_whose_baseline_fails_measured_nothing_and_exits_1(tmp_path):
    def broken(target, options):
        raise RuntimeError("no python here")

    verified = verify(_input_bound(tmp_path), budget=30, run=broken)
    assert verified.whatif_failed and any(p.startswith("--verify: the baseline trial failed") for p in verified.problems)
    assert (tmp_path / "diagnosis.json").exists()  # its outputs are written all the same
    assert exits.of_saved(verified) == exits.of_run(verified) == 1


def test_ctrl_c_during_the_what_if_exits_130(tmp_path):
    def interrupted(target, options):
        raise KeyboardInterrupt

    verified = verify(_input_bound(tmp_path), budget=30, run=interrupted)
    assert verified.interrupted and not verified.whatif_failed
    assert exits.of_saved(verified) == 130


def test_a_what_if_with_nothing_to_measure_ran(tmp_path):
    result = _input_bound(tmp_path)
    plain = Diagnosis(verdict=Verdict(category="compute", headline="h"))
    verified = verify(DiagnoseResult(result.record, result.record_path, plain, None, {}), budget=30)
    assert not verified.whatif_failed and exits.of_saved(verified) == 0


# -- each command's statuses through the CLI -----------------------------------------------------------

def test_diagnose_bad_input_is_2(tmp_path, capsys):
    assert main(["diagnose"]) == 2
    assert main(["diagnose", str(tmp_path / "missing.py")]) == 2
    assert "script not found" in capsys.readouterr().err


def test_report_statuses(tmp_path, capsys):
    run = tmp_path / "run.json"
    shutil.copy(CLEAN, run)
    assert main(["report", str(run)]) == 0 and (tmp_path / "report.html").exists()
    (tmp_path / "file").write_text("")
    assert main(["report", str(run), "-o", str(tmp_path / "file" / "report.html")]) == 1  # not written
    assert "the HTML report could not be written" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "not.json").write_text("[]")
    assert main(["report", str(tmp_path / "not.json")]) == 2


def test_verify_bad_input_is_2(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing.json"), "-q"]) == 2
    record = RunRecord(invocation=Invocation(script=str(CLEAN), args=("--token", "<redacted>"),
                                             redacted=("--token",)))
    record.save(tmp_path / "run.json")
    assert main(["verify", str(tmp_path / "run.json"), "-q"]) == 2
    assert "<redacted>" in capsys.readouterr().err
    assert not (tmp_path / "report.html").exists()  # refused before the rules and the report


def test_trace_bad_input_is_2(tmp_path):
    assert main(["trace", str(tmp_path / "missing.json"), "-o", str(tmp_path / "out")]) == 2
    (tmp_path / "empty.json").write_text("")
    assert main(["trace", str(tmp_path / "empty.json"), "-o", str(tmp_path / "out2")]) == 2


def test_a_usage_error_is_2_for_every_command():
    for args in (["diagnose", "--no-such-option"], ["report"], ["verify"], ["trace"], ["compare"],
                 ["check", "--no-such-option"], ["check", "--data", "/no/such/folder"], ["check-summary"],
                 ["rules", "explain"]):
        assert main(args) == exits.BAD_INPUT, args


def test_the_json_summary_of_a_report_keeps_its_keys(tmp_path, capsys):
    run = tmp_path / "run.json"
    shutil.copy(CLEAN, run)
    assert main(["report", str(run), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {"verdict", "findings", "outcome", "report_path", "record_path"} <= set(summary)
