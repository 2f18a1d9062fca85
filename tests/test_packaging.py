"""An installed wheel carries rules/ and templates/ and finds them without a checkout."""

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True, text=True)
    (path,) = out.glob("trainprobe-*.whl")
    return path


@pytest.mark.slow
def test_wheel_contains_rules_and_templates(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    rules = {Path(n).name for n in names if n.startswith("trainprobe/_data/rules/")}
    templates = {Path(n).name for n in names if n.startswith("trainprobe/_data/templates/")}
    assert {p.name for p in (ROOT / "rules").glob("*.toml")} <= rules
    # The option sets rules share (options_from) keep their folder: the loader looks in rules/shared/.
    assert {f"trainprobe/_data/rules/shared/{p.name}" for p in (ROOT / "rules" / "shared").glob("*.toml")} <= set(names)
    assert {p.name for p in (ROOT / "templates").glob("*.j2")} <= templates
    assert any(n.endswith("entry_points.txt") for n in names)


@pytest.mark.slow
def test_installed_wheel_works_outside_the_checkout(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    # System site packages bring torch and the other dependencies; trainprobe itself comes from the wheel.
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
                   check=True, capture_output=True, text=True)
    probe = subprocess.run(
        [str(python), "-c", "import trainprobe.resources as r; print(r.rules_dir()); print(r.templates_dir())"],
        cwd=tmp_path, check=True, capture_output=True, text=True,
    )
    rules_dir, templates_dir = probe.stdout.split()
    assert str(env_dir) in rules_dir and str(env_dir) in templates_dir
    listing = subprocess.run([str(env_dir / "bin" / "trainprobe"), "rules", "list"], cwd=tmp_path,
                             capture_output=True, text=True)
    assert listing.returncode == 0, listing.stderr
    assert "dataloader-too-few-workers" in listing.stdout


@pytest.mark.slow
def test_the_overhead_benchmark_harness_measures_both_sides():
    """benchmarks/workloads/inprocess_ab.py: a few short pairs, one JSON object with both sides."""
    import json
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "workloads" / "inprocess_ab.py"),
                           "--model", "tiny", "--pairs", "3", "--steps", "5"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["pairs"] == 3 and result["plain_steps_per_s"] > 0 and result["probe_steps_per_s"] > 0
    low, high = result["wall_ratio_ci95"]
    assert low <= result["wall_ratio_q"][1] <= high
    low, high = result["throughput_ratio_ci95"]
    assert low <= result["throughput_ratio"] <= high


@pytest.mark.slow
def test_the_version_comparison_runs_another_copy_of_the_probe(tmp_path):
    """benchmarks/workloads/paired_versions.py against this checkout's own package, imported a second time."""
    import json
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "workloads" / "paired_versions.py"),
                           "--other", str(ROOT), "--model", "tiny", "--rounds", "3", "--steps", "5"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["rounds"] == 3
    for name in ("this_added_us", "other_added_us", "other_minus_this_us"):
        low, high = result[f"{name}_ci95"]
        assert low <= result[name] <= high
