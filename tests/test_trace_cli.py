"""``trainprobe trace``: the same outputs as ``diagnose`` from a trace file alone, and a clear
message (never a traceback) for what cannot be read."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from trainprobe.cli import main
from trainprobe.record import RunRecord

TRACES = Path(__file__).parent / "data" / "traces"
WORKERS0 = TRACES / "resnet50_v100_workers0.pt.trace.json.gz"


def _run(capsys, *args):
    code = main(["trace", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow  # over a second: the quick loop stays under its minute
def test_a_trace_gets_a_record_a_report_and_the_json_summary(tmp_path, capsys):
    code, out, err = _run(capsys, WORKERS0, "-o", tmp_path / "r", "--json")
    assert code == 0, err
    for name in ("run.json", "report.html", "summary.json", "diagnosis.json"):
        assert (tmp_path / "r" / name).exists(), name
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["verdict"]["category"] == "input"
    assert summary["source"] == "trace"
    first = summary["findings"][0]
    assert first["id"] == "dataloader-too-few-workers"
    assert {"id", "severity", "category", "title", "message", "advice"} <= set(first)
    assert any(line.startswith("dataloader-pin-memory-off: needs") for line in summary["not_judged"])
    record = RunRecord.load(tmp_path / "r" / "run.json")
    assert record.environment.gpus[0].name == "Tesla V100-DGXS-32GB"
    assert record.settings.dataloaders[0].num_workers == 0
    html = (tmp_path / "r" / "report.html").read_text()
    assert "The GPU&#39;s step" in html or "The GPU's step" in html
    assert "could not be judged" in html


@pytest.mark.slow  # a whole trace read again: kept out of the quick loop, run in CI
def test_report_renders_a_trace_record_again(tmp_path, capsys):
    _run(capsys, WORKERS0, "-o", tmp_path / "r")
    code, out, _ = (main(["report", str(tmp_path / "r" / "run.json")]), *capsys.readouterr())
    assert code == 0 and out.startswith("Input-bound")


def test_a_folder_of_ranks_is_one_job_with_every_rank(tmp_path, capsys):
    code, out, err = _run(capsys, TRACES / "two_ranks_of128", "-o", tmp_path / "job", "--json")
    assert code == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    ranks = summary["ranks"]
    assert [r["rank"] for r in ranks] == [0, 1]
    slowest = [r for r in ranks if r["slowest"]]
    assert len(slowest) == 1 and slowest[0]["why_slowest"]
    assert slowest[0]["step_time_s"] == max(r["step_time_s"] for r in ranks)
    for rank in (0, 1):
        assert (tmp_path / "job" / f"rank{rank}" / "report.html").exists()
    assert "Every rank of the job" in (tmp_path / "job" / "report.html").read_text()


def test_a_trace_without_steps_says_how_to_record_one(tmp_path, capsys):
    code, out, err = _run(capsys, TRACES / "a100_alexnet_startup.pt.trace.json.gz", "-o", tmp_path / "a")
    assert code == 0, err
    assert "No steps in this trace" in out and "prof.step()" in out
    assert (tmp_path / "a" / "report.html").exists()


def _bad_inputs(tmp: Path) -> dict[str, Path]:
    empty = tmp / "empty.json"
    empty.write_text("")
    cut = tmp / "cut.pt.trace.json.gz"
    cut.write_bytes(WORKERS0.read_bytes()[:200])
    not_trace = tmp / "config.json"
    not_trace.write_text(json.dumps({"lr": 0.1, "epochs": 3}))
    text = tmp / "notes.json"
    text.write_text("this is not JSON at all")
    return {"missing": tmp / "nowhere.json", "empty": empty, "cut gzip": cut, "not a trace": not_trace,
            "not JSON": text, "empty folder": _empty_folder(tmp)}


def _empty_folder(tmp: Path) -> Path:
    folder = tmp / "nothing-here"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("case", ["missing", "empty", "cut gzip", "not a trace", "not JSON", "empty folder"])
def test_what_cannot_be_read_gets_a_clear_message(tmp_path, capsys, case):
    path = _bad_inputs(tmp_path)[case]
    code, out, err = _run(capsys, path, "-o", tmp_path / "out")
    assert code == 2
    assert "Traceback" not in out + err
    assert err.startswith("trainprobe: ") and path.name in err
    assert not (tmp_path / "out" / "run.json").exists()


@pytest.mark.slow  # a whole trace read again: kept out of the quick loop, run in CI
def test_a_trace_cut_mid_way_is_read_up_to_the_cut(tmp_path, capsys):
    raw = gzip.decompress(WORKERS0.read_bytes())
    cut = tmp_path / "cut.json"
    cut.write_bytes(raw[: int(len(raw) * 0.8)])
    code, out, err = _run(capsys, cut, "-o", tmp_path / "out")
    assert code == 0, err
    record = RunRecord.load(tmp_path / "out" / "run.json")
    assert any("ends early" in n or "cut" in n for n in record.notes), record.notes
    assert record.steps


@pytest.mark.slow  # a large part of a trace read: kept out of the quick loop, run in CI
def test_a_trace_cut_before_its_kernels_claims_nothing_from_what_it_lacks(tmp_path, capsys):
    """The V100 ResNet trace holds its CPU ops first: cut at a third of the file, it held no kernel, and the
    verdict was "the model trains on the CPU while 4 GPUs are available", critical. Past a cut, absence is
    unknown: no GPU claim either way, and the headline says what the verdict rests on."""
    data = WORKERS0.read_bytes()
    cut = tmp_path / "cut.pt.trace.json.gz"
    cut.write_bytes(data[: len(data) // 3])
    code, out, err = _run(capsys, cut, "-o", tmp_path / "out", "--json")
    assert code == 0, err
    diagnosis = json.loads((tmp_path / "out" / "diagnosis.json").read_text())
    ids = [f["id"] for f in diagnosis["findings"]]
    assert "model-on-cpu-with-gpu-available" not in ids and "cpu-bf16-not-used" not in ids
    headline = diagnosis["verdict"]["headline"]
    assert "This trace file was cut off: The gzip stream ends early" in headline
    assert "The CPU is busy" not in headline and "The device is busy" in headline
    facts = {f["name"]: f["value"] for f in diagnosis["facts"]}
    assert facts["trace_cut"] and facts["cuda_used"] is None and facts["model_on_cpu"] is None


def test_a_trace_cut_before_its_first_step_says_so_and_not_that_a_run_failed(tmp_path, capsys):
    cut = tmp_path / "cut.pt.trace.json.gz"
    cut.write_bytes(WORKERS0.read_bytes()[:20000])
    code, out, err = _run(capsys, cut, "-o", tmp_path / "out")
    assert "could not be started" not in out + err
    assert "The trace was cut off before its first whole step: the gzip stream ends early" in out
    assert "No steps in the part of this trace that could be read: the file was cut off" in out
    assert "it has no ProfilerStep#N ranges" not in out


@pytest.mark.slow  # a whole trace read again: kept out of the quick loop, run in CI
def test_several_files_of_one_rank_are_read_as_one(tmp_path, capsys):
    folder = tmp_path / "cycles"
    folder.mkdir()
    shutil.copy(WORKERS0, folder / "worker0.1.pt.trace.json.gz")
    shutil.copy(WORKERS0, folder / "worker0.2.pt.trace.json.gz")
    code, out, err = _run(capsys, folder, "-o", tmp_path / "out", "--json")
    assert code == 0, err
    record = RunRecord.load(tmp_path / "out" / "run.json")
    assert len(record.invocation.options["files"]) == 2
    assert record.ranks == ()
