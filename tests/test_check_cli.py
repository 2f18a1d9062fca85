"""`trainprobe check` and `trainprobe check-summary` through the CLI, on this machine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainprobe.cli import cli, main
from trainprobe.readiness import CheckResult, items
from trainprobe.readiness import collect as collect_module

DATA = Path(__file__).parent / "data" / "check"
REPO = Path(__file__).resolve().parents[1]
EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One real `trainprobe check --quick` here, shared by the tests that read it."""
    out = tmp_path_factory.mktemp("quick")
    runner = CliRunner()
    result = runner.invoke(cli, ["check", "--quick", "--json", "--name", "tester",
                                 "--save", str(out / "me.json"), "--html", str(out / "me.html")],
                           standalone_mode=False)
    return result, out


@pytest.mark.slow
def test_real_quick_check_here(quick_run):
    result, out = quick_run
    assert result.exception is None, result.output
    data = json.loads(result.stdout)
    r = CheckResult.from_dict(data)
    assert r.mode == "quick" and r.name == "tester" and len(r.hostname_hash) == 12
    keys = [g.key for g in r.grades]
    assert keys == [i.key for i in items.QUICK]  # every quick item, in the registry's order
    assert not set(keys) & {i.key for i in items.BENCHMARKS}  # no benchmarks in --quick
    assert r.duration < 60
    assert result.return_value == r.exit_code
    assert r.exit_code == {"ready": 0, "warnings": 1, "not_ready": 3}[r.verdict]
    gpu = next(g for g in r.grades if g.key == "gpu")
    if not r.facts.environment.gpus and not r.facts.torch.cuda_available:
        assert gpu.status == "warn" and "no NVIDIA GPU visible" in gpu.note
        assert r.facts.environment.nvml.reason.startswith("GPU metrics unavailable")
    torch_grade = next(g for g in r.grades if g.key == "torch")
    assert torch_grade.status == "pass"
    assert CheckResult.load(out / "me.json") == r
    page = (out / "me.html").read_text()
    assert "Is this machine ready?" in page and "tester" in page


def _recorded_torch_facts(monkeypatch):
    """Skip the child import of torch: reuse the torch facts recorded here (real data)."""
    recorded = CheckResult.load(DATA / "here_quick.json").facts.torch
    monkeypatch.setattr(collect_module, "collect_torch_facts", lambda: recorded)


def test_expect_file_gates_the_exit_code(monkeypatch, tmp_path, capsys):
    _recorded_torch_facts(monkeypatch)
    monkeypatch.setenv("NO_COLOR", "1")
    expect = tmp_path / "course.toml"
    expect.write_text('[course]\nname = "Vision"\n[require]\nram_gb = 1\nshm_gb = 0.01\n')
    code = main(["check", "--quick", "--expect", str(expect)])
    out = capsys.readouterr().out
    assert code in (0, 1)  # RAM and shm satisfied; other items may warn
    assert 'for course "Vision"' in out and "RAM *" in out
    expect.write_text("[require]\nram_gb = 100000\n")
    assert main(["check", "--quick", "--expect", str(expect)]) == 3  # not ready: a check that says no
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1].startswith("Not ready")


def test_sample_course_expect_file_here(monkeypatch, capsys):
    _recorded_torch_facts(monkeypatch)
    code = main(["check", "--quick", "--json", "--expect", str(REPO / "sample_scripts" / "course-expect.toml")])
    r = CheckResult.from_dict(json.loads(capsys.readouterr().out))
    assert r.course == "Deep Learning 101" and r.expectations["gpu"] is True
    if not r.facts.environment.gpus:
        assert code == 3 and next(g for g in r.grades if g.key == "gpu").status == "fail"


def test_bad_expect_file_is_a_clear_message(tmp_path, capsys):
    bad = tmp_path / "course.toml"
    bad.write_text("[require]\ngpu_ram = 8\n")
    assert main(["check", "--quick", "--expect", str(bad)]) == 2  # bad input, as for every command: not 3, "Not ready"
    err = capsys.readouterr().err
    assert "unknown requirement(s) ['gpu_ram']" in err and "Traceback" not in err
    assert main(["check", "--quick", "--expect", str(tmp_path / "nope.toml")]) == 2
    assert "expect file not found" in capsys.readouterr().err


def test_a_file_that_cannot_be_written_costs_a_line_not_the_checklist(monkeypatch, tmp_path, capsys):
    _recorded_torch_facts(monkeypatch)
    (tmp_path / "file").write_text("")
    code = main(["check", "--quick", "--save", str(tmp_path / "file" / "me.json")])
    captured = capsys.readouterr()
    assert "the result could not be written" in captured.err and "Traceback" not in captured.err
    assert captured.out.rstrip().splitlines()[-1].startswith(("Ready", "Not ready"))  # the checklist is shown
    assert code == (3 if "Not ready" in captured.out else 1)  # not ready says more than the lost file


def test_check_summary_escapes_names_and_lists_every_machine(tmp_path, capsys):
    evil = CheckResult.load(DATA / "here_quick.json")
    (tmp_path / "evil.json").write_text(json.dumps({**evil.to_dict(), "name": EVIL}))
    for name in ("fake_gpu_a100_ready.json", "fake_gpu_t4_broken.json", "here_full.json"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"schema_version": 1}')
    files = sorted(str(p) for p in tmp_path.glob("*.json"))
    html = tmp_path / "class.html"
    code = main(["check-summary", *files, "-o", str(html)])
    captured = capsys.readouterr()
    assert code == 1  # two files could not be read; the page was still written
    assert "broken.json: not valid JSON" in captured.err
    assert "other.json: not a trainprobe check result" in captured.err
    page = html.read_text()
    assert EVIL not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    for name in ("fake-a100-student", "fake-t4-student", "recorded-here-full"):
        assert name in page and name in captured.out
    assert "broken.json" in page
    # worst first: the broken T4 heads the table
    rows = [line for line in captured.out.splitlines()[1:] if "student" in line or "recorded" in line]
    assert rows[0].startswith("fake-t4-student") and "Not ready" in rows[0]
    assert "torchvision" in page and "nms does not exist" in page


def test_check_summary_with_nothing_readable(tmp_path, capsys):
    code = main(["check-summary", str(tmp_path / "missing.json"), "-o", str(tmp_path / "c.html")])
    assert code == 2
    assert "missing.json: file not found" in capsys.readouterr().err
    assert not (tmp_path / "c.html").exists()


@pytest.mark.slow
def test_real_full_check_here(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    for i in range(8):
        (data / f"part{i}.bin").write_bytes(bytes(range(256)) * 4096)
    code = main(["check", "--data", str(data), "--json", "--name", "full"])
    r = CheckResult.from_dict(json.loads(capsys.readouterr().out))
    assert code == r.exit_code and r.mode == "full"
    measured = {m.key: m for m in r.measurements}
    for key in ("jpeg_decode", "disk_read", "matmul_cpu", "train_benchmark"):
        assert measured[key].value is not None, (key, measured[key].reason)
    assert measured["disk_read"].details["bytes"] == 8 * 256 * 4096
