"""Classes test set 9 showed (seen since its run; docs/measured.md, ninth set).

Cutout's ResNet-18 steps were too long for the probe to count one op by op, so the dtype its products
ran in was unknown, and the bf16 finding stayed silent on a CPU that multiplies bfloat16 4.5x faster
than float32, with 61% of the op time in matrix products. The model's parameters say the same thing.
"""

from __future__ import annotations

import recorded

SEEN_TEST9 = recorded.RUNS_DIR / "real_test9"


def test_a_run_without_a_counted_step_is_judged_by_its_parameters_dtype():
    _record, diagnosis = recorded.diagnosed(SEEN_TEST9 / "t9_cutout_resnet18_cifar.cpu.run.json")
    facts = diagnosis.fact_values()
    assert facts["flops_dtype"] is None and facts["model_dtype"] == "float32"
    bf16 = next(f for f in diagnosis.findings if f.id == "cpu-bf16-not-used")
    assert "The model's parameters are float32" in bf16.message
    assert diagnosis.verdict.category == "compute"


def test_a_counted_step_still_decides_the_dtype():
    # The MLOps-Basics BERT was counted: its products ran in fp32, under the rule's share of the op time.
    _record, diagnosis = recorded.diagnosed(SEEN_TEST9 / "t9_mlopsbasics_cola.cpu.run.json")
    facts = diagnosis.fact_values()
    assert facts["flops_dtype"] == "fp32"
    assert "cpu-bf16-not-used" not in {f.id for f in diagnosis.findings}
