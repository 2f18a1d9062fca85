"""The sample gallery: headers that say what each script plants, scripts that run, and the scoring.

The per-sample runs are ``python SCRIPT`` in a reduced mode (one epoch, three
steps), each forked from one process that imported torch once
(tests/run_samples_forked.py); the accuracy benchmark (benchmarks/accuracy.py) is what runs them
through ``trainprobe diagnose``. One end-to-end test does that for one sample.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_scripts"


def _load_accuracy():
    spec = importlib.util.spec_from_file_location("trainprobe_bench_accuracy", ROOT / "benchmarks" / "accuracy.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while the class is built
    spec.loader.exec_module(module)
    return module


accuracy = _load_accuracy()
SAMPLE_PATHS = sorted(p for p in SAMPLES.glob("*.py") if not p.name.startswith("_"))
RULES = accuracy.load_rules()


def test_gallery_is_there():
    assert len(SAMPLE_PATHS) >= 14
    assert RULES, "no rule files found"


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=lambda p: p.stem)
def test_header_parses_and_names_valid_rules(path):
    header = accuracy.read_header(path)
    for key in accuracy.HEADER_KEYS:
        assert key in header, f"{path.name}: header lacks {key!r}"
    assert isinstance(header["plants"], str) and header["plants"].strip()
    assert isinstance(header["clean"], bool) and isinstance(header["ci"], bool)
    assert isinstance(header["args"], list) and all(isinstance(a, str) for a in header["args"])
    assert set(header["verdict"]) == {"cpu", "gpu"}
    assert set(header["findings"]) == {"cpu", "gpu"}
    for device in ("cpu", "gpu"):
        verdict = header["verdict"][device]
        assert verdict is None or verdict in accuracy.CATEGORIES, f"{path.name}: bad {device} verdict {verdict!r}"
        named = list(header["findings"][device]) + list(header.get("allow", {}).get(device, []))
        unknown = [i for i in named if i not in RULES]
        assert not unknown, f"{path.name}: unknown rule ids {unknown}"
    gpu_only_on_cpu = [i for i in header["findings"]["cpu"] if RULES[i]["gpu_only"]]
    assert not gpu_only_on_cpu, f"{path.name}: GPU-only rules expected on a CPU run: {gpu_only_on_cpu}"
    if header["clean"]:
        assert header["findings"] == {"cpu": [], "gpu": []} and not any(header.get("allow", {}).values())
    else:  # a sample that plants nothing but is not clean names what else is true of it (a negative control)
        named = header["findings"]["cpu"] or header["findings"]["gpu"] or any(header.get("allow", {}).values())
        assert named, f"{path.name} plants nothing it names"


def test_every_rule_that_can_fire_on_a_cpu_is_planted_for_a_cpu_run():
    planted = {i for p in SAMPLE_PATHS for i in accuracy.read_header(p)["findings"]["cpu"]}
    # model-on-cpu-with-gpu-available needs a GPU to exist; outside-cpu-load needs other programs' load,
    # which a script's own processes cannot plant. The job rules need several ranks under torchrun: their
    # planted jobs are tests/data/jobs/.
    not_plantable = {"model-on-cpu-with-gpu-available", "outside-cpu-load",
                     "straggler-rank", "work-on-rank-0-alone", "ddp-find-unused-parameters",
                     "distributed-sampler-missing"}
    cpu_rules = {i for i, r in RULES.items() if not r["gpu_only"]} - not_plantable
    assert cpu_rules - planted == set()


def test_every_sample_guards_main_and_picks_its_device():
    for path in SAMPLE_PATHS:
        text = path.read_text()
        assert 'if __name__ == "__main__":' in text, path.name
        assert 'device = "cuda" if torch.cuda.is_available() else "cpu"' in text, path.name


@pytest.fixture(scope="module")
def plain_runs(tmp_path_factory):
    """Every sample, one epoch of three steps, run as ``python SCRIPT`` runs it."""
    out = tmp_path_factory.mktemp("plain") / "runs.json"
    subprocess.run([sys.executable, str(ROOT / "tests" / "run_samples_forked.py"), str(out), "--epochs", "1",
                    "--steps", "3", "--", *map(str, SAMPLE_PATHS)], cwd=str(ROOT), timeout=900, check=True)
    return json.loads(out.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=lambda p: p.stem)
def test_sample_runs_with_plain_python(path, plain_runs):
    result = plain_runs[str(path)]
    assert result["returncode"] == 0, result["stderr"]


@pytest.mark.slow
def test_the_forked_runner_reports_a_failing_script_as_python_would(tmp_path):
    ok, bad, quits = tmp_path / "ok.py", tmp_path / "bad.py", tmp_path / "quits.py"
    ok.write_text("import sys\nassert __name__ == '__main__' and sys.argv[1:] == ['--x']\n")
    bad.write_text("raise ValueError('planted')\n")
    quits.write_text("import sys\nsys.exit(3)\n")
    out = tmp_path / "runs.json"
    subprocess.run([sys.executable, str(ROOT / "tests" / "run_samples_forked.py"), str(out), "--x", "--",
                    str(ok), str(bad), str(quits)], check=True, timeout=120)
    runs = json.loads(out.read_text())
    assert [runs[str(p)]["returncode"] for p in (ok, bad, quits)] == [0, 1, 3]
    assert "ValueError: planted" in runs[str(bad)]["stderr"]


def _result(findings_cpu, found, allow=None, clean=False, verdict="input", found_verdict="input"):
    sample = accuracy.Sample(name="s", path=Path("s.py"), plants="x", verdict={"cpu": verdict, "gpu": None},
                             findings={"cpu": findings_cpu, "gpu": []}, allow={"cpu": allow or []},
                             clean=clean, ci=True, args=())
    return accuracy.Result(sample=sample, device="cpu", status="stopped", verdict=found_verdict, found=found)


def test_scoring_counts_info_hits_but_only_warnings_as_false_positives():
    r = _result(["a", "b"], {"a": "info", "c": "warning", "d": "info", "e": "critical"}, allow=["e"])
    assert r.hits == ["a"] and r.misses == ["b"]
    assert r.false_positives == ["c"]  # d is info, e is allowed
    clean = _result([], {"e": "warning", "d": "info"}, allow=["e"], clean=True, verdict="compute",
                    found_verdict="input")
    assert clean.false_positives == ["e"] and clean.verdict_ok is False
    totals = accuracy.score([r, clean])
    assert (totals.hits, totals.expected, totals.false_positives) == (1, 2, 2)
    assert totals.precision == pytest.approx(1 / 3) and totals.recall == pytest.approx(0.5)
    assert totals.verdict_accuracy == pytest.approx(0.5)


def test_summary_falls_back_to_the_last_json_line(tmp_path):
    stdout = 'epoch 0: loss {not json}\n{"verdict": {"category": "host"}, "findings": []}\n'
    assert accuracy._summary_from(tmp_path, stdout)["verdict"]["category"] == "host"
    (tmp_path / "summary.json").write_text('{"verdict": {"category": "input"}, "findings": []}')
    assert accuracy._summary_from(tmp_path, stdout)["verdict"]["category"] == "input"


# CI's fast subset, end to end through `trainprobe diagnose`: a host-bound and a clean one (the input-bound
# sample runs end to end in tests/test_trace_live.py, its trace read back beside it). They check that the
# run is diagnosed and reported; whether each finding comes out on a given machine is what
# benchmarks/accuracy.py measures and the README shows.
@pytest.mark.slow
@pytest.mark.parametrize("name", ["tokenize_in_loop", "clean_mlp"])
def test_ci_subset_is_diagnosed_end_to_end(tmp_path, name):
    sample = next(s for s in accuracy.load_samples() if s.name == name)
    assert sample.ci
    # The host-bound sample's loop Python is most of every step: a 2 s window (CI's time) judges it. The clean
    # one keeps the default window: its "nothing above info" is what a short, noisier window could spoil.
    extra = ("--window", "2") if name == "tokenize_in_loop" else ()
    result = accuracy.run_diagnose(sample, "cpu", tmp_path / "run", timeout=300, extra=extra)
    assert result.status in ("stopped", "completed"), result.error
    assert result.verdict == sample.verdict["cpu"]
    assert (tmp_path / "run" / "report.html").exists() and (tmp_path / "run" / "run.json").exists()
    if sample.clean:
        assert not [f for f, severity in result.found.items() if severity != "info"]


def test_the_expert_fix_lines_are_read_as_an_expert_writes_them():
    """benchmarks/accuracy.py scores whether a finding names the line an expert wrote down (issue 25: advice
    that points at the user's line): files with ranges, bare ":N" after a file, and notebook cells."""
    sites = accuracy.parse_fix_location("train.py:100-101 (autocast) and :114 (backward); cfg.py:7")
    assert sites == (("train.py", None, 100, 101), ("train.py", None, 114, 114), ("cfg.py", None, 7, 7))
    assert accuracy.at_fix_location("train.py:101", sites) and accuracy.at_fix_location("sub/train.py:114", sites)
    assert not accuracy.at_fix_location("train.py:102", sites) and not accuracy.at_fix_location("cfg.py:8", sites)
    notebook = accuracy.parse_fix_location("nb.ipynb cell 19, line 1 (the loader); the dataset in cell 17")
    assert accuracy.at_fix_location("cell 19, line 1", notebook) and accuracy.at_fix_location("cell 17, line 9", notebook)
    assert not accuracy.at_fix_location("cell 19, line 2", notebook)
    assert accuracy.parse_fix_location("none needed: the model's math") == ()
    # a configuration file's key (test set 20's anomalib and LLaMA-Factory, set 21's config-driven runs)
    config = accuracy.parse_fix_location("examples/configs/model/ganomaly.yaml:16 (`trainer:`); run.toml:4, "
                                         "configs/train.json:12")
    assert config == (("ganomaly.yaml", None, 16, 16), ("run.toml", None, 4, 4), ("train.json", None, 12, 12))
    assert accuracy.at_fix_location("examples/configs/model/ganomaly.yaml:16", config)


def test_an_experts_notebook_cells_are_renumbered_as_trainprobe_counts_them():
    """trainprobe says "cell 6": the sixth code cell. pyannote's expert (test set 22) wrote "cell 18 (0-based
    index over all cells), line 3" for the same line; torchio's (set 16) wrote "cell 30" without saying how."""
    kinds = ["markdown", "code", "markdown", "code", "code", "markdown", "code"]  # code cells 1-4 at 1, 3, 4, 6
    text = "nb.ipynb, cell 4 (0-based index over all cells), line 3: add precision"
    sites = accuracy.parse_fix_location(text)
    assert sites == (("nb.ipynb", 4, 3, 3),)
    renumbered = accuracy.in_trainprobes_cells(sites, text, lambda: kinds)
    assert accuracy.at_fix_location("cell 3, line 3", renumbered) and not accuracy.at_fix_location("cell 4, line 3", renumbered)
    # Stated as trainprobe counts: read as written, the notebook not needed.
    plain = "nb.ipynb cell 2, line 1 (code cells counted from 1)"
    assert accuracy.in_trainprobes_cells(accuracy.parse_fix_location(plain), plain, lambda: 1 / 0) == (("nb.ipynb", 2, 1, 1),)
    # Code cells from 0; a markdown cell named over all cells cannot be renumbered and stays as written.
    zero = "nb.ipynb cell 1 (0-based code cells), line 2"
    assert accuracy.at_fix_location("cell 2, line 2", accuracy.in_trainprobes_cells(accuracy.parse_fix_location(zero), zero, lambda: kinds))
    # Unsaid: trainprobe's count or nbformat's index (every cell from 0) both stand.
    unsaid = "nb.ipynb, cell 6, line 9"
    both = accuracy.in_trainprobes_cells(accuracy.parse_fix_location(unsaid), unsaid, lambda: kinds)
    assert accuracy.at_fix_location("cell 6, line 9", both) and accuracy.at_fix_location("cell 4, line 9", both)
    # No notebook at hand: compared as written.
    assert accuracy.in_trainprobes_cells(sites, text, lambda: []) == sites
    assert accuracy.cell_numbering("cell 9 (notebook cell index, 0-based)") == (True, 0)
    assert accuracy.cell_numbering("cell 9") is None


def test_an_experts_later_review_is_the_verdict_scored_and_the_first_stays_defensible(tmp_path):
    """Issue 25: the seq2seq tutorial's expert profiled it after trainprobe's first answer and revised launch to
    compute ([review] after_the_fact, kept apart from the expectation); the table counts the review, and the
    verdict first written stays defensible and is printed beside it."""
    (tmp_path / "a.expect.toml").write_text(
        'source = "o/r"\npath = "a.py"\n[expert]\nverdict = "launch"\nacceptable_verdicts = ["launch", "host"]\n'
        '[review]\nafter_the_fact = "compute"\n', encoding="utf-8")
    (tmp_path / "b.expect.toml").write_text(
        'source = "o/r"\npath = "b.py"\n[expert]\nverdict = "input"\n', encoding="utf-8")
    reviewed, plain = accuracy.load_real(tmp_path)
    assert reviewed.verdict["cpu"] == "compute" and reviewed.first_written == "launch"
    assert set(reviewed.acceptable) == {"launch", "host", "compute"}
    assert plain.verdict["cpu"] == "input" and plain.first_written == "" and plain.acceptable == ()
