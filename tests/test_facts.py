"""Facts from run records: units, the step split, None for what a record cannot tell."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
import math
import os
import sys
from dataclasses import replace

import pytest

from trainprobe.facts.window import steady_steps
from trainprobe.findings import Fact
from trainprobe.facts import FACT_CATALOG, compute_facts, facts_by_name
from trainprobe.facts.input import MATH_PARALLEL_SHARE, suggest_num_workers, with_suggested_workers
from trainprobe.record import RunRecord

sys.path.insert(0, os.path.dirname(__file__))
from recorded import ALL_RUNS  # noqa: E402
from rule_cases.records import (cpu_record, gpu_record, with_env, with_hotspots,  # noqa: E402
                                with_loader, with_settings, with_steps, with_workers)

UNITS = {"s", "share", "count", "bool", "text", "x", "ratio", "1/s", "per_step", "bytes", "B/s", "FLOP", "FLOP/s",
         "percent", "W", "C"}


def facts(record: RunRecord) -> dict[str, object]:
    return facts_by_name(compute_facts(record))


def test_every_catalog_entry_has_a_unit_family_and_meaning():
    for name, spec in FACT_CATALOG.items():
        assert spec.name == name
        assert spec.unit in UNITS, name
        assert spec.family and spec.meaning.endswith((".", ")")), name


def test_one_fact_per_catalog_entry_in_catalog_order():
    out = compute_facts(gpu_record())
    assert [f.name for f in out] == list(FACT_CATALOG)
    assert all(isinstance(f, Fact) for f in out)


def test_facts_are_json_ready():
    for record in (gpu_record(), cpu_record(), RunRecord()):
        for f in compute_facts(record):
            assert f.value is None or isinstance(f.value, (bool, int, float, str)), f.name
            json.dumps(f.to_dict(), allow_nan=False)


def test_an_empty_record_gives_none_not_errors():
    out = facts(RunRecord())
    assert out["step_time_median"] is None
    assert out["data_wait_share"] is None
    assert out["gpu_util_p50"] is None
    assert out["steady_steps"] == 0
    assert out["cpu_only"] is True


def test_step_shares_add_up_to_the_step():
    out = facts(gpu_record())
    total = sum(out[f"{p}_share"] for p in ("data_wait", "h2d", "forward", "backward",
                                            "optimizer", "eval", "debug", "other"))
    assert total == pytest.approx(1.0)
    assert out["step_time_median"] == pytest.approx(0.05)
    assert out["steps_per_second"] == pytest.approx(20.0)
    assert out["samples_per_second"] == pytest.approx(256 / 0.05)
    assert out["gpu_busy_share"] == pytest.approx(0.046 / 0.05)


def test_data_wait_share_follows_the_steps():
    out = facts(with_steps(gpu_record(), data_wait=0.089))
    assert out["data_wait_share"] == pytest.approx(0.089 / 0.138, rel=1e-6)
    assert out["data_wait_per_step"] == pytest.approx(0.089)


def test_stalls_are_the_waits_longer_than_a_steps_work():
    """Every 8th step waits 90 ms for an empty queue, the others 1 ms: the stalls hold most of
    the wait, and the suggested queue outlasts two of them."""
    from rule_cases.cases import with_stalls
    record = with_loader(with_stalls(with_steps(gpu_record(), data_wait=0.001), every=8, stall=0.09),
                         num_workers=8, prefetch_factor=2)
    out = facts(record)
    steady = steady_steps(record)
    stalled = [s for s in steady if s.data_wait > 0.05]
    assert out["data_wait_stalls"] == len(stalled) > 0
    assert out["data_wait_stall_share"] == pytest.approx(
        sum(s.data_wait for s in stalled) / sum(s.data_wait for s in steady))
    assert out["data_wait_stall_p90"] == pytest.approx(0.09)
    step = out["step_time_median"]
    # prefetch 2 + ceil(2 x 90 ms / (8 workers x median step))
    assert out["suggested_prefetch_factor"] == 2 + math.ceil(2 * 0.09 / (8 * step))


def test_even_waits_are_no_stalls():
    out = facts(with_steps(gpu_record(), data_wait=0.02))
    assert out["data_wait_stalls"] == 0 and out["data_wait_stall_share"] == 0.0
    assert out["suggested_prefetch_factor"] is None


def test_warmup_steps_are_not_steady():
    record = gpu_record()
    slow_warmup = tuple(replace(s, duration=5.0) if s.phase == "warmup" else s
                        for s in record.steps)
    assert facts(replace(record, steps=slow_warmup))["step_time_median"] == pytest.approx(0.05)


@pytest.mark.parametrize("cores, processes, expected", [
    (8, 1, 6), (2, 1, 1), (4, 1, 3), (16, 2, 6), (64, 1, 16), (1, 1, 0), (4, 4, 0), (None, 1, None)])
def test_suggested_num_workers(cores, processes, expected):
    suggestion, reason = suggest_num_workers(cores, processes)
    assert suggestion == expected
    assert reason


def test_step_with_workers_on_a_gpu_is_the_slower_of_the_loop_and_the_workers():
    # 100 ms steps, 60 ms of them waiting for a batch that takes 60 ms to make.
    run = {"step_time": 0.1, "data_wait_per_step": 0.06, "fetch_per_batch": 0.06, "batches_per_step": 1,
           "num_workers": 0, "cpu_only": False, "usable_cores": 8, "torch_threads": 8, "compute_per_step": 0.03}
    assert with_suggested_workers({**run, "suggested_num_workers": 6})["step_with_suggested_workers"] == \
        pytest.approx(0.04)  # six workers make a batch every 10 ms: the loop's 40 ms rest is the step
    assert with_suggested_workers({**run, "suggested_num_workers": 1})["step_with_suggested_workers"] == \
        pytest.approx(0.06)  # one worker is the step
    assert with_suggested_workers({**run, "suggested_num_workers": 6})["torch_threads_with_workers"] is None
    assert with_suggested_workers({**run, "num_workers": 6, "suggested_num_workers": 6}) == {}


def test_on_a_cpu_only_run_the_workers_cores_come_out_of_the_math():
    # 2 cores, both used by the math (2 threads): one worker leaves it one.
    run = {"step_time": 0.24, "data_wait_per_step": 0.04, "fetch_per_batch": 0.04, "batches_per_step": 1,
           "num_workers": 0, "cpu_only": True, "usable_cores": 2, "torch_threads": 2, "compute_per_step": 0.2,
           "main_cpu_cores": 1.9, "suggested_num_workers": 1}
    out = with_suggested_workers(run)
    p = MATH_PARALLEL_SHARE
    slower = 0.2 * (1 / (1 - p + p / 2) - 1)  # Amdahl: one thread instead of two
    assert out["torch_threads_with_workers"] == 1
    assert out["step_with_suggested_workers"] == pytest.approx(0.2 + slower)
    assert out["step_with_suggested_workers"] > run["step_time"]  # the fix would not pay here
    # A model whose math used one core (one thread) loses nothing to the worker.
    alone = with_suggested_workers({**run, "torch_threads": 1, "main_cpu_cores": 1.0})
    assert alone["step_with_suggested_workers"] == pytest.approx(0.2)


def test_suggested_num_workers_counts_distributed_processes():
    record = with_env(gpu_record(), usable_cores=16)
    record = with_settings(record, distributed=True, world_size=2)
    out = facts(record)
    assert out["suggested_num_workers"] == 6
    assert "2 training processes" in out["suggested_num_workers_reason"]


def test_worker_saturation_uses_busy_workers_only():
    record = with_workers(gpu_record(), 4, 90.0)
    assert facts(record)["worker_cpu_saturation"] == pytest.approx(0.9)
    idle = with_workers(gpu_record(), 4, 1.0)
    assert facts(idle)["worker_cpu_saturation"] is None
    assert facts(idle)["worker_cores_used"] == 0.0


def test_worker_categories_come_from_hotspots():
    out = facts(with_hotspots(cpu_record(), worker_categories={"decode": 0.6, "io": 0.1}))
    assert out["worker_decode_share"] == 0.6
    assert out["worker_io_share"] == 0.1
    assert out["worker_transform_share"] is None


def test_thread_demand_and_oversubscription():
    out = facts(with_loader(cpu_record(), num_workers=2))
    assert out["cpu_thread_demand"] == 4
    assert out["cpu_oversubscription"] == pytest.approx(2.0)


def test_gpu_facts_from_nvml_samples():
    out = facts(gpu_record())
    assert out["gpu_util_p50"] == pytest.approx(97.0)
    assert out["power_share_of_limit"] == pytest.approx(0.8)
    assert out["sm_clock_share"] == pytest.approx(1.0)
    assert out["gpu_memory_peak_share"] == pytest.approx(30 / 80)
    assert out["throttle_thermal_share"] == 0.0
    assert out["gpu_bf16"] is True and out["tensor_cores"] is True


def test_cpu_run_has_no_gpu_facts():
    out = facts(cpu_record())
    assert out["cuda_used"] is False and out["cpu_only"] is True
    assert out["gpu_util_p50"] is None and out["power_share_of_limit"] is None
    assert out["gpu_metrics_available"] is False


def test_model_on_cpu_needs_a_visible_gpu():
    assert facts(cpu_record())["model_on_cpu"] is False
    record = with_env(with_settings(cpu_record(), cuda_available=True), gpu_count=1)
    assert facts(record)["model_on_cpu"] is True


def test_tf32_reads_precision_and_flags():
    assert facts(gpu_record())["tf32_enabled"] is True
    assert facts(cpu_record())["tf32_enabled"] is False
    unknown = with_settings(cpu_record(), cuda_matmul_allow_tf32=None,
                            float32_matmul_precision=None)
    assert facts(unknown)["tf32_enabled"] is None


def test_optimizer_default_fused_counts_as_false():
    assert facts(cpu_record())["optimizer_fused"] is False
    assert facts(gpu_record())["optimizer_fused"] is True
    assert facts(cpu_record())["optimizer_type"] == "SGD"


def test_epoch_start_extra_wait():
    record = with_steps(cpu_record(), epoch_every=6, epoch_wait=2.0)
    out = facts(record)
    assert out["epoch_start_extra"] == pytest.approx(2.0)
    assert out["epochs_seen"] == 4


def test_debug_apis_lists_what_is_on():
    record = with_settings(cpu_record(), anomaly_detection=True, cuda_launch_blocking=True)
    assert facts(record)["debug_apis"] == "anomaly detection, CUDA_LAUNCH_BLOCKING=1"
    assert facts(cpu_record())["debug_apis"] == ""


def test_a_family_that_fails_leaves_its_facts_none(monkeypatch):
    from trainprobe.facts import gpu

    def broken(record):
        raise ZeroDivisionError("odd record")

    monkeypatch.setattr(gpu, "compute", broken)
    out = facts(gpu_record())
    assert out["gpu_util_p50"] is None
    assert out["step_time_median"] == pytest.approx(0.05)


def test_nan_values_become_none():
    record = with_steps(gpu_record(), data_wait=float("nan"))
    for f in compute_facts(record):
        assert not (isinstance(f.value, float) and math.isnan(f.value)), f.name


def test_item_calls_leave_out_the_optimizers_own():
    from rule_cases.records import with_profiler
    record = with_profiler(cpu_record(), syncs_per_step=10.0,
                           sync_calls={"item/tolist": 2.0, "item/tolist (optimizer)": 8.0})
    assert facts(record)["item_calls_per_step"] == 2.0
    clean = with_profiler(cpu_record(), syncs_per_step=8.0,
                          sync_calls={"item/tolist (optimizer)": 8.0})
    assert facts(clean)["item_calls_per_step"] == 0


def test_public_surface():
    import trainprobe.facts as package
    for name in package.__all__:
        assert hasattr(package, name)
    for module in package.FAMILIES:
        assert {"FAMILY", "FACTS", "compute"} <= set(module.__all__)


def test_fp32_share_falls_back_to_matmul_share_without_autocast():
    from rule_cases.records import with_profiler
    no_amp = with_settings(gpu_record(), autocast_forwards=0)
    no_amp = with_profiler(no_amp, fp32_matmul_conv_share=None)
    assert facts(no_amp)["fp32_matmul_conv_share"] == pytest.approx(0.70)
    amp = with_profiler(gpu_record(), fp32_matmul_conv_share=None)
    assert facts(amp)["fp32_matmul_conv_share"] is None


def test_gpus_used_counts_distinct_devices():
    from rule_cases.records import with_model
    assert facts(gpu_record())["gpus_used"] == 1
    typed = with_model(with_settings(gpu_record(), devices_used=("cpu", "cuda")), devices=("cuda:0",))
    assert facts(typed)["gpus_used"] == 1
    two = with_model(gpu_record(), devices=("cuda:0", "cuda:1"))
    assert facts(two)["gpus_used"] == 2
    assert facts(cpu_record())["gpus_used"] == 0


# --- facts by value on the recorded real runs ------------------------------------------------------

# Not the held-out test set (real_test/): benchmarks/accuracy.py alone scores it. The GPU campaign's runs
# (gpu/) in the slow set: the quick loop stays under a minute.
RECORDED = [pytest.param(p, id=p.stem.split(".")[0], marks=(pytest.mark.slow,) if "gpu" in p.parent.parts else ())
            for p in ALL_RUNS]


def _by_hand(record: RunRecord):
    """The steady window as the docs define it, computed here independently of trainprobe.facts."""
    steps = [s for s in record.steps if s.phase == "steady" and not s.validation] or \
        [s for s in record.steps if s.phase != "warmup" and not s.validation]
    if len(steps) < 5:  # too short for a separate warm-up: its steps after the first count, but outliers
        later = [s for s in record.steps if s.phase == "warmup" and not s.validation][1:]
        typical = statistics.median([s.duration for s in steps + later]) if steps + later else 0
        steps = [s for s in later if s.duration <= 2 * typical] + steps
    inside = [s for s in steps if not s.epoch_start]
    if 2 * len(inside) >= len(steps):
        steps = inside
    sizes = [s.samples for s in steps if s.samples]
    usual = max(set(sizes), key=sizes.count) if sizes else None
    if usual is not None and 2 * sizes.count(usual) > len(sizes):
        steps = [s for s in steps if s.samples is None or s.samples >= usual] or steps
    return steps


@pytest.mark.parametrize("path", RECORDED)
def test_step_facts_by_value_on_recorded_runs(path):
    record = RunRecord.load(path)
    values = facts(record)
    steps = _by_hand(record)
    assert values["steady_steps"] == len(steps)
    if not steps:
        return
    total = sum(s.duration for s in steps)
    assert values["step_time"] == pytest.approx(total / len(steps))
    assert values["steps_per_second"] == pytest.approx(len(steps) / total)
    assert values["step_time_median"] == pytest.approx(statistics.median(s.duration for s in steps))
    for phase in ("data_wait", "h2d", "forward", "backward", "optimizer", "other"):
        assert values[f"{phase}_share"] == pytest.approx(sum(getattr(s, phase) for s in steps) / total), phase
        assert values[f"{phase}_per_step"] == pytest.approx(sum(getattr(s, phase) for s in steps) / len(steps))
    shares = sum(values[f"{p}_share"] for p in ("data_wait", "h2d", "forward", "backward", "optimizer", "eval",
                                                  "debug", "other"))
    assert shares == pytest.approx(1.0, abs=1e-6)  # the phases add up to the step
    if all(s.samples for s in steps):
        assert values["samples_per_second"] == pytest.approx(sum(s.samples for s in steps) / total)


@pytest.mark.parametrize("path", RECORDED)
def test_settings_and_machine_facts_by_value_on_recorded_runs(path):
    record = RunRecord.load(path)
    values = facts(record)
    env = record.environment
    assert values["usable_cores"] == (env.usable_cores or env.logical_cores)
    assert values["cpu_only"] is (not record.settings.cuda_used)
    assert values["steps_recorded"] == len(record.steps)
    assert values["outcome_status"] == record.outcome.status
    training = [d for d in record.settings.dataloaders if d.used_in_training]
    if training:
        assert values["num_workers"] == training[0].num_workers
        assert values["batch_size"] == training[0].batch_size
        assert values["pin_memory"] is training[0].pin_memory
    if values["main_cpu_cores"] is not None:
        assert 0.0 <= values["main_cpu_cores"] <= (env.logical_cores or 64) + 0.5
    if values["outside_cpu_cores"] is not None:
        assert 0.0 <= values["outside_cpu_cores"] <= (env.logical_cores or 64)
