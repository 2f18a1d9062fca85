"""probe/peak.py's TRAINPROBE_CPU_PEAK_FILE: one measurement kept for the runs after it, when it fits."""

from __future__ import annotations

import json

import pytest
import torch

from trainprobe.probe.peak import PEAK_FILE_ENV, measure_peak


@pytest.mark.slow
def test_a_kept_measurement_is_reused_only_by_a_run_it_fits(tmp_path, monkeypatch):
    path = tmp_path / "peak.json"
    monkeypatch.setenv(PEAK_FILE_ENV, str(path))
    first = measure_peak(torch, cuda=False, dtypes=("fp32",), t0=0.0)
    assert first.duration > 0 and json.loads(path.read_text())["flops_per_s"] == first.flops_per_s
    again = measure_peak(torch, cuda=False, dtypes=("fp32",), t0=0.0)
    assert again.flops_per_s == first.flops_per_s and again.duration is None and again.started is None
    # Another thread count, or a dtype it did not measure, is measured afresh.
    kept = json.loads(path.read_text())
    path.write_text(json.dumps({**kept, "threads": kept["threads"] + 1}))
    assert measure_peak(torch, cuda=False, dtypes=("fp32",), t0=0.0).duration > 0
    path.write_text(json.dumps({**kept, "flops_per_s": {"bf16": 1.0}}))
    assert measure_peak(torch, cuda=False, dtypes=("fp32",), t0=0.0).duration > 0
    path.write_text("not json")
    assert measure_peak(torch, cuda=False, dtypes=("fp32",), t0=0.0).duration > 0
