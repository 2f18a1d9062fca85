"""bf16 autocast on a CPU that multiplies bfloat16 slower than float32 (cpu-bf16-slower), on recorded real runs.

Test set 29's Lightning GPT hard-codes Trainer(precision='bf16-mixed'); on the AVX2-only VM that recorded it, bf16
products ran at 10% of the fp32 rate, and its expert measured precision='32-true' at 2.75x more samples per
second (a later review of that set: its row stays as run).
"""

from __future__ import annotations

import recorded


def _finding(path):
    _, diagnosis = recorded.diagnosed(path)
    return diagnosis, next((f for f in diagnosis.findings if f.id == "cpu-bf16-slower"), None)


def test_lightnings_bf16_mixed_on_an_avx2_cpu_leads_with_32_true():
    diagnosis, finding = _finding(recorded.RUNS_DIR / "real_test29" / "t29_lgpt_nanogpt_shakespeare.cpu.run.json.gz")
    assert finding is not None and finding.severity == "warning"
    assert diagnosis.findings[0].id == "cpu-bf16-slower" and diagnosis.verdict.category == "compute"
    assert finding.framework == "lightning"
    assert 'precision="32-true"' in finding.advice and "(now bf16-mixed)" in finding.advice
    assert finding.changes_at == "train.py:83"  # the L.Trainer(...) call; precision= is on its line 90
    assert 1.4 <= finding.gain.speedup <= 2.75  # the estimate stays under what its expert measured


def test_the_sample_recorded_on_the_same_cpu_names_it():
    _, finding = _finding(recorded.RUNS_DIR / "bf16_autocast_on_any_cpu.cpu.run.json")
    assert finding is not None
    assert "torch.autocast(device_type, dtype=torch.bfloat16, enabled=use_bf16)" in finding.snippet


def test_float32_runs_and_fast_bf16_cpus_get_nothing():
    """The gallery's fp32 sample (recorded on a CPU with AMX) ran no autocast."""
    _, finding = _finding(recorded.RUNS_DIR / "fp32_on_a_bf16_cpu.cpu.run.json")
    assert finding is None
