"""Recorded real GPU runs: the campaign on an NVIDIA H200 (tests/data/runs/gpu/README.md).

These are the first runs of trainprobe on a GPU. The first campaign (first-campaign/) found what no fake
had shown: every GPU run lost its counting step, the host's time in a blocking copy was read as
copying, and an out-of-memory finding was listed under a warning. The records are data; the facts,
findings and verdicts are computed again by the current code.
"""

from __future__ import annotations

import dataclasses
import pstats
from pathlib import Path

import pytest

import recorded
from trainprobe.engine import apply_rules
from trainprobe.facts import FACT_CATALOG
from trainprobe.probe.hotspots import summarize_hotspots

# Diagnosing 24 recorded runs takes seconds: the quick loop (-m "not slow") stays under a minute.
pytestmark = pytest.mark.slow

GPU = recorded.RUNS_DIR / "gpu"
CAMPAIGN = sorted(GPU.glob("*.h200.run.json.gz"))
FIRST = sorted((GPU / "first-campaign").glob("*/run.json.gz"))


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
    values = _values(GPU / "amp_off.h200.run.json.gz")
    assert values["mfu"] is None and "ran ahead of the GPU" in values["mfu_unknown_reason"]


@pytest.mark.parametrize("path", [GPU / "near_full_card.h200.run.json.gz",
                                  GPU / "first-campaign" / "near_full_card" / "run.json.gz"],
                         ids=["campaign", "first-campaign"])
def test_a_blocking_copy_on_a_compute_bound_gpu_is_not_called_copying(path):
    """GPT-2 small in fp32 with pin_memory=False: the host sat in .to(device) for 88% of the step while
    the GPU computed (busy 98%). The verdict is compute, with mixed precision first; no copy finding."""
    _record, diagnosis = recorded.diagnosed(path)
    ids = [f.id for f in diagnosis.findings]
    assert diagnosis.verdict.category == "compute", diagnosis.verdict.headline
    assert "amp-not-used" in ids and "dataloader-pin-memory-off" not in ids
    assert diagnosis.fact_values()["h2d_share"] > 0.8 > 0.01 > diagnosis.fact_values()["h2d_exposed_share"]


@pytest.mark.parametrize("path", [GPU / "cuda_oom.h200.run.json.gz", GPU / "first-campaign" / "cuda_oom" / "run.json.gz"],
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
    values = _values(GPU / "near_peak.h200.run.json.gz")
    assert values["peak_dtype"] == "bf16" and values["peak_flops_per_s"] == pytest.approx(989.4e12)
    assert 0.4 <= values["mfu"] <= 654 / 989.4 * 1.1
    assert recorded.diagnosed(GPU / "near_peak.h200.run.json.gz")[1].verdict.category == "compute"


def test_fp32_ffma_kernels_are_not_counted_as_tensor_cores():
    """The H200's fp32 GEMMs without TF32 are cuBLAS xmma kernels doing FFMA on the CUDA cores
    (sm80_xmma_gemm_f32f32_..._ffma_...): the trace read again gives no tensor-core time. The probe's
    record of the same run kept the old reading (42%), made when it ran."""
    record = recorded.trace_record_at(GPU / "traces" / "near_full_card.pt.trace.json.gz")
    assert record.profiler.tensor_core_share == 0.0
    assert recorded.load(GPU / "near_full_card.h200.run.json.gz").profiler.tensor_core_share > 0.4


# The third call (third-call/, this session's lease; README.md there): the probe of 2884241 with the
# window-end drain, on a Firecracker H200 with Python 3.12.3.
THIRD = GPU / "third-call"
THIRD_RUNS = sorted(THIRD.glob("*.h200.run.json.gz"))


def test_the_third_call_is_recorded():
    assert len(THIRD_RUNS) == 15
    on_gpu = {p.name.split(".")[0] for p in THIRD_RUNS if recorded.load(p).settings.cuda_used}
    assert on_gpu == {p.name.split(".")[0] for p in THIRD_RUNS} - {"hf_trainer"}  # its script sets use_cpu=True


def test_the_gpus_shares_are_of_the_steady_step_not_the_profiled_one():
    """Convolutions under AMP: 4.6 ms steady steps that the profiler stretched to 9.4 ms, the GPU busy
    3.8 ms of either. The profiled window showed the GPU idle 59% 'waiting for the host to launch'
    (launch-bound, the verdict as run); the steady step leaves it idle 18%: compute-bound, as the
    sample plants and the second call found."""
    path = THIRD / "channels_last.h200.run.json.gz"
    values = _values(path)
    assert values["profiled_step_time"] > 1.8 * values["step_time"]
    busy = values["device_busy_per_step"] / values["step_time"]
    idle = sum(values[n] for n in ("gpu_idle_data_share", "gpu_idle_sync_share", "gpu_idle_host_share",
                                   "gpu_idle_launch_share", "gpu_idle_dependency_share"))
    assert busy + idle == pytest.approx(1.0, abs=0.02)
    assert values["gpu_idle_share"] == pytest.approx(1.0 - busy, abs=0.02) and values["gpu_idle_share"] < 0.25
    diagnosis = recorded.diagnosed(path)[1]
    assert diagnosis.verdict.category == "compute"
    assert "tiny-kernels-launch-bound" not in [f.id for f in diagnosis.findings]


def test_a_step_timed_shorter_than_the_gpus_work_is_timed_by_the_gpus_work():
    """fp32 matmuls without TF32: steady host steps of 6.1 ms (an epoch's first step, left out, caught the
    queue up) for 8.8 ms of kernels a step. MFU from the device's work: under the fp32 matmul rate that
    `trainprobe check` measured on the same card (50.05 TFLOP/s, check.txt), not unknown."""
    values = _values(THIRD / "amp_off.h200.run.json.gz")
    assert values["device_busy_per_step"] > 1.3 * values["step_time"]
    assert values["mfu"] is not None and values["achieved_flops_per_s"] <= 50.05e12 * 1.05
    assert values["mfu"] > 0.5


def test_a_trainer_kept_on_the_cpu_is_told_its_setting():
    """TrainingArguments(use_cpu=True) on a machine with an H200: the fix is that setting, on its line."""
    diagnosis = recorded.diagnosed(THIRD / "hf_trainer.h200.run.json.gz")[1]
    finding = diagnosis.findings[0]
    assert finding.id == "model-on-cpu-with-gpu-available" and finding.severity == "critical"
    assert "use_cpu=True" in finding.advice and "model.to(device)" not in finding.advice
    assert finding.changes_at.endswith("hf_trainer_tokenize.py:59")  # TrainingArguments(...)


# The fourth call (fourth-call/): the same lease, the probe of 1f01d99 (the fixes above), six items again.
FOURTH = GPU / "fourth-call"


def test_the_loops_cpu_tensors_are_counted_on_python_3_12_with_the_profile_kept_to_its_thread():
    """cpu_tensors_in_loop makes 2 CPU tensors a step (torch.randn, torch.tensor). With cProfile hearing
    every thread (Python 3.12.3), the third call counted 1.3 a step; kept to the loop's thread, 2."""
    third = _values(THIRD / "pageable_copies.h200.run.json.gz")["loop_tensor_creations_per_step"]
    fourth = _values(FOURTH / "pageable_copies.h200.run.json.gz")["loop_tensor_creations_per_step"]
    assert third < 1.5 and fourth == pytest.approx(2.0, abs=0.05)


def test_the_only_dataloader_is_not_called_the_training_one_when_training_made_its_own_batches():
    """The sample trains from batches indexed on the device; its one DataLoader is validation's (batch
    1024, under no_grad). The third call took it for the training loader; the fourth did not, and no
    finding speaks of its batch size, its pin_memory or its line."""
    record = recorded.load(FOURTH / "pageable_copies.h200.run.json.gz")
    assert [(d.batch_size, d.used_in_training) for d in record.settings.dataloaders] == [(1024, False)]
    assert recorded.load(THIRD / "pageable_copies.h200.run.json.gz").settings.dataloaders[0].used_in_training
    diagnosis = recorded.diagnosed(FOURTH / "pageable_copies.h200.run.json.gz")[1]
    assert not [f.id for f in diagnosis.findings if "1024" in f.title + f.message or
                (f.changes_at or "").endswith("cpu_tensors_in_loop.py:82")]


def test_random_numbers_drawn_on_the_cpu_each_step_lead_with_the_line_that_draws_them(tmp_path):
    """The run's Python profile (kept beside its record), read by the current probe: the loop's torch.randn
    on the CPU took 2 ms of each 4.2 ms step, its 2 MB copy 0.1 ms. The GPU idled waiting for the host, but
    not for launches: the fix is drawing them on the device, at the line that draws them (98), not
    torch.compile."""
    record = recorded.load(FOURTH / "pageable_copies.h200.run.json.gz")
    ran_at = record.settings.loop_at.split("sample_scripts/")[0]  # the checkout on the machine it ran on
    here = str(Path(__file__).resolve().parents[1]) + "/"

    def moved(key):  # the profile's paths, moved to this checkout (the call graph reads the script's lines)
        return (key[0].replace(ran_at, here, 1),) + tuple(key[1:])

    stats = pstats.Stats(str(FOURTH / "pageable_copies.main.pstats"))
    stats.stats = {moved(k): (cc, nc, tt, ct, {moved(c): v for c, v in callers.items()})  # type: ignore[attr-defined]
                   for k, (cc, nc, tt, ct, callers) in stats.stats.items()}  # type: ignore[attr-defined]
    stats.dump_stats(str(tmp_path / "main.pstats"))
    loop_at = record.settings.loop_at.replace(ran_at, here, 1)
    window = {"stats_path": str(tmp_path / "main.pstats"), "wall": record.hotspots.window,
              "steps": record.hotspots.steps}
    hot = summarize_hotspots(str(tmp_path), window, (here + "sample_scripts",), "", loop_at)
    diagnosis = apply_rules(dataclasses.replace(record, hotspots=hot))
    values = diagnosis.fact_values()
    assert 0.3 < values["loop_tensor_creation_share"] < 0.5
    assert values["loop_tensor_creation_at"].endswith("cpu_tensors_in_loop.py:98")
    first = diagnosis.findings[0]
    assert first.id == "tensor-created-on-cpu-in-loop" and diagnosis.verdict.category == "copy"
    assert "torch.randn(x.shape, device=device)" in first.advice


def test_the_fourth_call_as_run():
    """The fixes of the third call's findings, on the machine: channels_last compute, amp_off's MFU known and
    under the card's measured fp32 rate, hf_trainer told its use_cpu setting."""
    assert recorded.diagnosed(FOURTH / "channels_last.h200.run.json.gz")[1].verdict.category == "compute"
    amp = _values(FOURTH / "amp_off.h200.run.json.gz")
    assert amp["mfu"] is not None and amp["achieved_flops_per_s"] <= 50.05e12 * 1.05
    trainer = recorded.diagnosed(FOURTH / "hf_trainer.h200.run.json.gz")[1].findings[0]
    assert trainer.id == "model-on-cpu-with-gpu-available" and "use_cpu=True" in trainer.advice


# The fifth call (fifth-call/): the probe of efa07b2 on the same kind of machine, one item and the overhead A/B.
FIFTH = GPU / "fifth-call"


def test_the_cpu_drawn_noise_leads_as_run():
    """The probe that times each creation site, on the H200: copy, the randn line first, as planted."""
    diagnosis = recorded.diagnosed(FIFTH / "pageable_copies.h200.run.json.gz")[1]
    first = diagnosis.findings[0]
    assert diagnosis.verdict.category == "copy" and first.id == "tensor-created-on-cpu-in-loop"
    assert first.changes_at.endswith("cpu_tensors_in_loop.py:98")



# The H100 call (h100/, 2026-11-27): the whole campaign on another card, with the probe of 2de4de1; then
# (h100/verify/) two items again with the nesting fix and the control's new size (README.md there).
H100 = GPU / "h100"
H100_RUNS = sorted(H100.glob("*.h100.run.json.gz"))


def test_the_h100_call_is_recorded():
    assert len(H100_RUNS) == 15 and "H100" in (H100 / "env.txt").read_text()
    assert all(recorded.load(p).settings.cuda_used for p in H100_RUNS if not p.name.startswith("hf_trainer"))


@pytest.mark.parametrize("path", [p for p in H100_RUNS if not p.name.startswith(("cuda_oom", "hf_trainer"))],
                         ids=lambda p: p.name)
def test_every_h100_run_counted_its_flops_and_no_share_is_above_one(path):
    values = _values(path)
    assert values["flops_per_step"], values.get("flops_unknown_reason")
    shares = {name: values[name] for name, spec in FACT_CATALOG.items()
              if spec.unit == "share" and isinstance(values.get(name), (int, float))}
    assert all(v <= 1.0 + 1e-9 for v in shares.values()), {k: v for k, v in shares.items() if v > 1.0}
    assert values.get("mfu") is None or values["mfu"] <= 1.0


def test_the_loops_item_calls_are_not_filed_as_the_optimizers():
    """Each ProfilerStep starts inside the Optimizer.step range it was stepped from. Read as that range's
    child, the next step's two .item() calls were the optimizer's (1.9 a step, as run); read again by the
    current code they are the loop's, and the live run after the fix recorded them so."""
    as_run = recorded.load(H100 / "item_syncs.h100.run.json.gz").profiler.sync_calls
    assert as_run["item/tolist (optimizer)"] > 1.5 and as_run["item/tolist"] < 0.5
    again = recorded.trace_digest(H100 / "traces" / "item_syncs.pt.trace.json.gz").summary.sync_calls
    assert again["item/tolist"] == pytest.approx(2.0) and "item/tolist (optimizer)" not in again
    live = recorded.load(H100 / "verify" / "item_syncs.h100.run.json.gz").profiler.sync_calls
    assert live["item/tolist"] == pytest.approx(2.0) and "item/tolist (optimizer)" not in live


def test_item_calls_at_the_end_of_a_host_bound_step_are_counted_and_not_blamed():
    """On the H100 the sample's host takes longer to queue a step than the GPU to run it: by the
    .item() the queue is nearly empty, and the GPU idled 2% of the step for the syncs. Launch-bound,
    with the syncs below the rule's bar (the sample's planted 'sync' is a later review, README.md)."""
    values = _values(H100 / "verify" / "item_syncs.h100.run.json.gz")
    assert values["item_calls_per_step"] == pytest.approx(2.0)
    assert values["gpu_idle_sync_share"] < 0.05
    assert recorded.diagnosed(H100 / "verify" / "item_syncs.h100.run.json.gz")[1].verdict.category == "launch"


def test_the_clean_control_is_compute_bound_at_its_gpu_size():
    """At hidden 4096 and batch 2048 the control ran 1.3 ms of kernels in a 2.4 ms step on the H100:
    launch-bound, rightly. At 8192 and 4096 (the sample's GPU defaults since) it is compute-bound and clean."""
    old_record, old = recorded.diagnosed(H100 / "clean_mlp.h100.run.json.gz")
    assert old.verdict.category == "launch" and old.verdict.breakdown["launch"] > 0.4
    new_record, new = recorded.diagnosed(H100 / "verify" / "clean_mlp.h100.run.json.gz")
    assert new.verdict.category == "compute"
    assert [f.id for f in new.findings if f.severity != "info"] == []
    assert new.fact_values()["mfu"] > 0.4
