"""The GPU campaign's dry run: on a machine without a GPU it says so, lists every run and exits 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpu_campaign  # noqa: E402
import pytest  # noqa: E402


def test_every_campaign_item_is_a_sample_that_exists():
    for item in gpu_campaign.ITEMS:
        assert (gpu_campaign.SAMPLES / item.script).is_file(), item.script


def test_the_dry_run_lists_every_run_and_exits_0(tmp_path, capsys):
    assert gpu_campaign.main(["--dry-run", "--out", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    for item in gpu_campaign.ITEMS:
        assert item.name in out and item.script in out
    assert "diagnose --json" in out
    assert not (tmp_path / "c").exists()  # a dry run writes nothing


@pytest.mark.slow
def test_without_a_gpu_the_script_says_so_and_exits_0(tmp_path):
    if gpu_campaign.cuda_gpu() is not None:
        pytest.skip("a GPU machine runs the real campaign")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_campaign.py"), "--out", str(tmp_path / "c")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert "No CUDA GPU on this machine: a dry run" in proc.stdout
