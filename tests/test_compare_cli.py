"""``trainprobe compare`` as a command: its table, its --json line, the gate's exit codes and the one-sentence
refusals of bad input. The runs are the gallery's recordings (and a real run slowed down in the test); each
distinct record is diagnosed once per session, as tests/recorded.py does for the other tests."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from recorded import RUNS_DIR, diagnosed, load
from test_compare import slowed
from trainprobe.cli import cli
from trainprobe.compare import EXIT_SLOWER
from trainprobe.engine import apply_rules as diagnose
from trainprobe.record import RunRecord

UNOPTIMIZED = RUNS_DIR / "compare" / "cifar_resnet_unoptimized.cpu.run.json"
OPTIMIZED = RUNS_DIR / "compare" / "cifar_resnet_optimized.cpu.run.json"
CRASH = RUNS_DIR / "crash_loop.cpu.run.json"

_DIAGNOSES: dict[str, object] = {}


@pytest.fixture(autouse=True)
def diagnosed_once(monkeypatch):
    """The command diagnoses each run it reads; the same record read again gets the same diagnosis."""
    for path in (UNOPTIMIZED, OPTIMIZED):
        _DIAGNOSES.setdefault(load(path).to_json(), diagnosed(path)[1])
    _DIAGNOSES.setdefault(slowed()[0].to_json(), slowed()[1])

    def analyze(record):
        key = record.to_json()
        if key not in _DIAGNOSES:
            _DIAGNOSES[key] = diagnose(record)
        return _DIAGNOSES[key]

    monkeypatch.setattr("trainprobe.api.comparison.analyze", analyze)


def compare(*args):
    """Run the command as `trainprobe` does (trainprobe.cli.main exits with what it returns)."""
    result = CliRunner().invoke(cli, ["compare", *map(str, args)], standalone_mode=False)
    assert result.exception is None and "Traceback" not in result.output
    return result


def slowed_copy(tmp_path):
    """The unoptimized run with every step 1.3 times as long, saved as a run folder named "slowed"."""
    path = tmp_path / "slowed" / "run.json"
    path.parent.mkdir()
    slowed()[0].save(path)
    return path


def test_the_gallery_pair_prints_the_speedup_interval_and_settings(tmp_path):
    result = compare(UNOPTIMIZED, OPTIMIZED, "-o", tmp_path)
    assert result.return_value == 0
    lines = result.output.splitlines()
    assert lines[0] == "Baseline: cifar_resnet_unoptimized.cpu"
    assert any(line.startswith("cifar_resnet_optimized.cpu is 1.30× faster than cifar_resnet_unoptimized.cpu "
                               "(95% interval 1.2") for line in lines)
    assert "settings changed: num_workers 0 → 1; persistent_workers no → yes" in result.output
    assert "flag: different scripts" in result.output
    assert (tmp_path / "compare.html").exists() and (tmp_path / "comparison.json").exists()


def test_the_json_line_and_the_gate_passing_an_equal_run(tmp_path):
    result = compare(OPTIMIZED, OPTIMIZED, "-o", tmp_path, "--json", "--fail-if-slower", 10)
    assert result.return_value == 0
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["speedup"] == pytest.approx(1.0) and line["interval"][0] < 1 < line["interval"][1]
    assert line["conclusion"] == "inconclusive" and line["settings_changed"] == []
    assert line["verdicts"] == {"cifar_resnet_optimized.cpu": "compute", "cifar_resnet_optimized.cpu (2)": "compute"}
    assert line["gate"]["failed"] is False


def test_the_gate_fails_a_slower_run_with_its_own_exit_status(tmp_path):
    slowed = slowed_copy(tmp_path)
    result = compare(UNOPTIMIZED, slowed, "-o", tmp_path / "out", "--json", "--fail-if-slower", 10)
    assert result.return_value == EXIT_SLOWER == 3
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["speedup"] == pytest.approx(1 / 1.3) and line["interval"][1] < 1 / 1.1
    assert line["conclusion"] == "slower" and line["gate"]["failing"] == ["slowed"]
    assert "gate failed (--fail-if-slower 10): slowed is slower than the baseline by more than 10%" in result.stderr
    # the same slow-down under a 40% threshold passes
    assert compare(UNOPTIMIZED, slowed, "-o", tmp_path / "out", "--fail-if-slower", 40).return_value == 0


def test_a_run_folder_is_read_by_its_run_json(tmp_path):
    result = compare(slowed_copy(tmp_path).parent, UNOPTIMIZED, "-o", tmp_path / "out")
    assert result.return_value == 0 and result.output.startswith("Baseline: slowed\n")


def _cut_short(path, tmp):
    """The recorded crash cut after its first 3 steps (all warm-up: 2 count as steady)."""
    record = RunRecord.load(path)
    out = tmp / path.name
    dataclasses.replace(record, steps=record.steps[:3]).save(out)
    return out


@pytest.mark.parametrize("make, message", [
    (lambda tmp: [UNOPTIMIZED, tmp / "nope.json"], "trainprobe: run not found: {tmp}/nope.json\n"),
    (lambda tmp: [UNOPTIMIZED, _cut_short(CRASH, tmp)], "trainprobe: too few steps to compare: crash_loop.cpu has 2 "
                                                        "steady steps (at least 5 are needed); the run failed after 3 "
                                                        "recorded steps\n"),
    (lambda tmp: [UNOPTIMIZED], "trainprobe: give at least two runs to compare: the baseline first, then the "
                                "candidates\n"),
    (lambda tmp: [UNOPTIMIZED, tmp], "trainprobe: {tmp} is a folder without a run.json; give a run folder or a "
                                     "run.json\n"),
])
def test_bad_input_is_one_sentence_and_exit_status_2(tmp_path, make, message):
    result = compare(*make(tmp_path), "-o", tmp_path / "out")
    assert result.return_value == 2
    assert result.stderr == message.format(tmp=tmp_path)


def test_records_of_two_schema_versions_are_compared_and_flagged_and_a_newer_one_refused(tmp_path):
    from trainprobe.record import SCHEMA_VERSION

    data = json.loads(OPTIMIZED.read_text())
    assert data["schema_version"] < SCHEMA_VERSION  # the gallery was recorded before the last bump
    data["schema_version"] = SCHEMA_VERSION
    newer = tmp_path / "newer.run.json"
    newer.write_text(json.dumps(data))
    result = compare(UNOPTIMIZED, newer, "-o", tmp_path / "out")
    assert result.return_value == 0, result.stderr
    assert f"record schema {json.loads(UNOPTIMIZED.read_text())['schema_version']} and {SCHEMA_VERSION}" in \
        result.stdout
    data["schema_version"] = SCHEMA_VERSION + 1
    newer.write_text(json.dumps(data))
    result = compare(UNOPTIMIZED, newer, "-o", tmp_path / "out2")
    assert result.return_value == 2
    assert f"newer trainprobe (record schema {SCHEMA_VERSION + 1}; this version reads schema {SCHEMA_VERSION})" \
        in result.stderr


def test_an_output_folder_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("")
    result = compare(UNOPTIMIZED, OPTIMIZED, "-o", tmp_path / "file")
    assert result.return_value == 2 and "it is a file" in result.stderr


def test_help_documents_the_exit_statuses():
    text = CliRunner().invoke(cli, ["compare", "--help"]).output
    assert "3  --fail-if-slower: a candidate is slower than the baseline by more than PCT" in text
    assert "2  bad input" in text


def test_a_page_that_cannot_be_written_is_1_and_the_gate_still_wins(tmp_path, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("trainprobe.compare.write_page", full_disk)
    result = compare(UNOPTIMIZED, OPTIMIZED, "-o", tmp_path)
    assert result.return_value == 1 and "the comparison page could not be written" in result.stderr
    assert result.stdout.startswith("Baseline: cifar_resnet_unoptimized.cpu")  # the table is still printed
    slowed = slowed_copy(tmp_path)
    assert compare(UNOPTIMIZED, slowed, "-o", tmp_path / "out", "--fail-if-slower", 10).return_value == EXIT_SLOWER
