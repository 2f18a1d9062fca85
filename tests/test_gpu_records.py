"""Recorded real GPU runs: the campaign on an NVIDIA H200 (tests/data/runs/gpu/README.md).

These are the first runs of trainprobe on a GPU. The first campaign (first-campaign/) found what no fake
had shown: every GPU run lost its counting step, the host's time in a blocking copy was read as
copying, and an out-of-memory finding was listed under a warning. The records are data; the facts,
findings and verdicts are computed again by the current code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import recorded
from trainprobe.facts import FACT_CATALOG

# Diagnosing 24 recorded runs takes seconds: the quick loop (-m "not slow") stays under a minute.
pytestmark = pytest.mark.slow

GPU = recorded.RUNS_DIR / "gpu"
CAMPAIGN = sorted(GPU.glob("*.h200.run.json"))
FIRST = sorted((GPU / "first-campaign").glob("*/run.json"))


def _values(path: Path) -> dict[str, object]:
    return recorded.diagnosed(path)[1].fact_values()


def test_the_campaign_is_recorded():
    assert len(CAMPAIGN) == 12 and len(FIRST) == 12
    assert all(recorded.load(p).settings.cuda_used for p in CAMPAIGN)


@pytest.mark.parametrize("path", [p for p in CAMPAIGN if not p.name.startswith("cuda_oom")], ids=lambda p: p.name)
def test_every_gpu_run_counted_its_flops(path):
    """The first step (CUDA start-up, seconds) no longer sets the pace: the counting step runs."""
    values = _values(path)
    assert values["flops_per_step"], values.get("flops_unknown_reason")
    assert values["peak_flops_per_s"], values.get("peak_unknown_reason")


def test_the_first_campaign_lost_the_counting_step_on_every_run():
    """What the fix is measured against: the old probe's records say why they have no FLOPs."""
    for path in FIRST:
        values = _values(path)
        assert values["flops_per_step"] is None and "too slow" in str(values["flops_unknown_reason"])


@pytest.mark.parametrize("path", CAMPAIGN + FIRST, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_share_or_mfu_above_one(path):
    values = _values(path)
    shares = {name: values[name] for name, spec in FACT_CATALOG.items()
              if spec.unit == "share" and isinstance(values.get(name), (int, float))}
    assert all(v <= 1.0 + 1e-9 for v in shares.values()), {k: v for k, v in shares.items() if v > 1.0}
    mfu = values.get("mfu")
    assert mfu is None or 0.0 <= mfu <= 1.0


def test_an_impossible_mfu_is_left_unknown_with_its_reason():
    """fp32 matmuls without TF32 timed at '109% of the fp32 peak' (host steps that did not wait for
    the GPU, before the probe drained the queue at window ends): no figure, and why."""
    values = _values(GPU / "amp_off.h200.run.json")
    assert values["mfu"] is None and "ran ahead of the GPU" in values["mfu_unknown_reason"]


@pytest.mark.parametrize("path", [GPU / "near_full_card.h200.run.json",
                                  GPU / "first-campaign" / "near_full_card" / "run.json"],
                         ids=["campaign", "first-campaign"])
def test_a_blocking_copy_on_a_compute_bound_gpu_is_not_called_copying(path):
    """GPT-2 small in fp32 with pin_memory=False: the host sat in .to(device) for 88% of the step while
    the GPU computed (busy 98%). The verdict is compute, with mixed precision first; no copy finding."""
    _record, diagnosis = recorded.diagnosed(path)
    ids = [f.id for f in diagnosis.findings]
    assert diagnosis.verdict.category == "compute", diagnosis.verdict.headline
    assert "amp-not-used" in ids and "dataloader-pin-memory-off" not in ids
    assert diagnosis.fact_values()["h2d_share"] > 0.8 > 0.01 > diagnosis.fact_values()["h2d_exposed_share"]


@pytest.mark.parametrize("path", [GPU / "cuda_oom.h200.run.json", GPU / "first-campaign" / "cuda_oom" / "run.json"],
                         ids=["campaign", "first-campaign"])
def test_a_real_cuda_out_of_memory_heads_its_findings(path):
    _record, diagnosis = recorded.diagnosed(path)
    assert diagnosis.verdict.category == "memory"
    first = diagnosis.findings[0]
    assert first.category == "memory" and first.severity == "critical", [f.id for f in diagnosis.findings]
    assert "dataloader-pin-memory-off" not in [f.id for f in diagnosis.findings]


def test_the_near_peak_loop_lands_where_the_cards_own_matmul_does():
    """Large bf16 matmuls: the achieved rate from the counted FLOPs is a fair share of the datasheet's
    989 TFLOP/s, and no more than the bf16 matmul `trainprobe check` measured on the same card (654
    TFLOP/s, check.txt) allows with some noise; so the FLOP count and the peak table agree."""
    values = _values(GPU / "near_peak.h200.run.json")
    assert values["peak_dtype"] == "bf16" and values["peak_flops_per_s"] == pytest.approx(989.4e12)
    assert 0.4 <= values["mfu"] <= 654 / 989.4 * 1.1
    assert recorded.diagnosed(GPU / "near_peak.h200.run.json")[1].verdict.category == "compute"


def test_fp32_ffma_kernels_are_not_counted_as_tensor_cores():
    """The H200's fp32 GEMMs without TF32 are cuBLAS xmma kernels doing FFMA on the CUDA cores
    (sm80_xmma_gemm_f32f32_..._ffma_...): the trace read again gives no tensor-core time. The probe's
    record of the same run kept the old reading (42%), made when it ran."""
    record = recorded.trace_record_at(GPU / "traces" / "near_full_card.pt.trace.json.gz")
    assert record.profiler.tensor_core_share == 0.0
    assert recorded.load(GPU / "near_full_card.h200.run.json").profiler.tensor_core_share > 0.4
