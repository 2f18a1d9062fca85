"""MFU from a trace's shapes against the datasheet: the H100 traces, checked against the expert's figures.

The expect files' [measured] figures were computed from the trace files by a separate script before
trainprobe read them for FLOPs; trainprobe's MFU is over the mean step (the base of every figure),
and ``mfu_while_busy`` over the GPU's busy time, which is what the expert's "share of the peak over
the kernel span" measures.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.trace.record import read_traces

TRACES = Path(__file__).parent / "data" / "traces"


def _facts(name: str) -> dict:
    return facts_by_name(compute_facts(read_traces([TRACES / f"{name}.pt.trace.json.gz"])[0].record))


def _measured(name: str) -> dict:
    return tomllib.loads((TRACES / f"{name}.expect.toml").read_text())["measured"]


def test_the_timesformer_runs_at_about_6_percent_of_the_h100s_bf16_peak_while_busy():
    facts, measured = _facts("h100_timesformer_inference_bf16"), _measured("h100_timesformer_inference_bf16")
    assert facts["peak_source"] == "datasheet" and facts["peak_dtype"] == "bf16"
    assert facts["peak_flops_per_s"] == pytest.approx(989.4e12)
    assert facts["flops_per_step"] == pytest.approx(measured["shape_flops_per_step"], rel=1e-3)
    # Over the GPU's busy time (kernels, copies and memsets) against the expert's kernel span: 2% apart.
    assert facts["mfu_while_busy"] == pytest.approx(measured["share_of_bf16_dense_peak"], rel=0.03)
    step = measured["step_ms"][0] / 1e3
    assert facts["mfu"] == pytest.approx(measured["shape_flops_per_step"] / step / 989.4e12, rel=1e-3)


def test_a_trace_without_shapes_says_why_its_mfu_is_unknown():
    facts = _facts("v100_single_rank")
    assert facts["mfu"] is None and "no input shapes" in facts["mfu_unknown_reason"]


def test_a_gpu_missing_from_the_table_gets_peak_unknown_with_its_name():
    from trainprobe.probe.peak import datasheet_peak

    peak = datasheet_peak("NVIDIA GeForce GTX 1060")
    assert not peak.availability.available
    assert "NVIDIA GeForce GTX 1060" in peak.availability.reason and "peak unknown" in peak.availability.reason


def test_an_impossible_mfu_on_a_cpu_run_does_not_blame_a_gpu_queue():
    """speechbrain's x-vector (test set 11, a CPU-only run): 43 GFLOP counted for a step timed at 14 ms is
    12 times the CPU's measured peak, so no MFU is given. The reason said the host ran ahead of the GPU,
    on a run without one; a CPU has no queue to run ahead of, and the counted step did more work."""
    from recorded import load

    record = load(Path(__file__).parent / "data" / "runs" / "real_test11" / "t11_sb_speakerid_xvector.cpu.run.json")
    facts = facts_by_name(compute_facts(record))
    assert facts["cpu_only"] and facts["mfu"] is None
    assert "GPU" not in facts["mfu_unknown_reason"] and "CPU's measured peak" in facts["mfu_unknown_reason"]


REVIEW15 = Path(__file__).parent / "data" / "runs" / "real_test15" / "review"


def test_a_module_timed_longer_than_the_models_whole_step_is_not_named():
    """pytorch/tnt's MNIST example (test set 15, run again after its scoring): torchtnt's AutoUnit evaluates
    the test set inside the profiled steps, so conv2's forwards per profiled step (0.79 s) outlast the whole
    0.5 s training step. The headline said "its child module `conv2` takes 100% of the step"; no figure
    rather than a false one. A module timed within its step is still named (a seen set's TinyVGG)."""
    from recorded import load

    record = load(REVIEW15 / "t15_tnt_autounit_mnist.cpu.run.json.gz")
    conv2 = next(m for m in record.profiler.module_times if m.name == "conv2")
    facts = facts_by_name(compute_facts(record))
    assert conv2.forward_per_step > facts["step_time"]
    assert facts["top_module"] is None and facts["top_module_share"] is None
    tinyvgg = facts_by_name(compute_facts(load(Path(__file__).parent / "data" / "runs" / "real_test3"
                                               / "t3_modular_tinyvgg.cpu.run.json")))
    assert tinyvgg["top_module"] == "conv_block_1" and 0.5 < tinyvgg["top_module_share"] < 1.0


def test_anomaly_mode_a_framework_switches_on_per_step_is_found_and_fixed_in_its_terms():
    """The same run: AutoUnit(detect_anomaly=True) switches anomaly mode on only around each step's forward
    and backward. The held-out run read it as off and missed the expert's debug-api-enabled; now the stack
    capture seen during the steps says it was on, and the fix is torchtnt's argument."""
    from recorded import diagnosed

    _, diagnosis = diagnosed(REVIEW15 / "t15_tnt_autounit_mnist.cpu.run.json.gz")
    facts = diagnosis.fact_values()
    assert facts["anomaly_detection"] and facts["debug_per_step"] > 0 and facts["framework"] == "torchtnt"
    finding = next(f for f in diagnosis.findings if f.id == "debug-api-enabled")
    assert finding.framework == "torchtnt" and "AutoUnit with detect_anomaly=None" in finding.advice


def test_near_the_fp32_peak_is_not_near_the_limit_of_a_cpu_that_multiplies_bf16_faster():
    """MAE's pretraining (test set 18, its review run): the fp32 step runs at 78% of the CPU's measured fp32
    peak, and this CPU multiplies bfloat16 4.4x faster. The headline said "Near this hardware's limit ...
    Little is left to gain" above a bf16 finding worth 1.5x; the hardware's limit is its fastest precision's."""
    from recorded import load
    from trainprobe.engine import apply_rules
    from trainprobe.engine.verdict import NEAR_PEAK, near_peak

    record = load(Path(__file__).parent / "data" / "runs" / "real_test18" / "review"
                  / "t18_facebookresearch_mae_pretrain.cpu.run.json.gz")
    facts = facts_by_name(compute_facts(record))
    assert facts["mfu"] >= NEAR_PEAK and facts["peak_dtype"] == "fp32" and facts["bf16_peak_speedup"] > 4
    assert not near_peak(facts)
    diagnosis = apply_rules(record)
    headline = diagnosis.verdict.headline
    assert "Near this hardware's limit" not in headline and "Little is left to gain" not in headline
    assert "near what fp32 does here, but this CPU multiplies bfloat16 4.4× faster" in headline
    assert "cpu-bf16-not-used" in [f.id for f in diagnosis.findings]
    # Without a faster precision, the same step is near the limit.
    assert near_peak({**facts, "bf16_peak_speedup": None}) and near_peak({**facts, "peak_dtype": "bf16"})
