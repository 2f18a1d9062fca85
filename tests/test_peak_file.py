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


@pytest.mark.slow
def test_the_peak_is_no_slower_than_the_same_product_through_onednn(monkeypatch):
    """On the dev VM's AMD EPYC, torch.mm (MKL) multiplied fp32 at 219 GFLOP/s and the same product as a 1×1
    channels-last convolution (oneDNN) at 431: the LSTM and convolutions of eight recorded runs ran faster than
    the mm-only "peak". The peak is the faster of the two, so a oneDNN product never beats it (by more than the
    noise of a shared machine)."""
    monkeypatch.delenv(PEAK_FILE_ENV, raising=False)
    n = 1024
    pixels = torch.randn(1, n, 32, 32).contiguous(memory_format=torch.channels_last)
    weight = torch.randn(n, n, 1, 1).contiguous(memory_format=torch.channels_last)
    for _ in range(2):
        torch.nn.functional.conv2d(pixels, weight)
    import time
    fastest = float("inf")
    for _ in range(10):
        start = time.perf_counter()
        torch.nn.functional.conv2d(pixels, weight)
        fastest = min(fastest, time.perf_counter() - start)
    peak = measure_peak(torch, cuda=False, dtypes=("fp32",), t0=0.0).flops_per_s["fp32"]
    assert peak >= 0.8 * 2.0 * n ** 3 / fastest
