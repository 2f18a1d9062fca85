"""On a real GPU: the probe's GPU paths, end to end. Skipped on machines without CUDA (see conftest.py).

These are the checks that fakes cannot make: that NVML samples the run's GPU, that torch.profiler
sees CUDA kernels, that the GPU-only rules fire on a planted sample, and that the what-if's GPU fixes
take effect on a real device.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trainprobe.api import diagnose
from trainprobe.probe.config import WindowPlan
from trainprobe.probe.launch import ProbeOptions, run_probe
from trainprobe.whatif.inject import plugin_spec
from trainprobe.whatif.trials import summarize_trial

pytestmark = [pytest.mark.gpu, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parent.parent / "sample_scripts"
PLAN = WindowPlan(warmup_steps=3, steady_min_steps=8, steady_seconds=2.0, max_seconds=90)


def test_a_gpu_run_is_measured_on_the_device(tmp_path):
    result = diagnose([str(SAMPLES / "fp32_without_amp.py")], out_dir=tmp_path / "run", plan=PLAN)
    record, values = result.record, result.diagnosis.fact_values()
    assert record.settings.cuda_used and values["gpus_used"] == 1
    assert record.samples.gpu_availability.available and record.samples.gpus[0].t
    assert values["gpu_util_p50"] is not None and values["power_w_median"] is not None
    assert "CUDA" in record.profiler.activities and record.profiler.launches_per_step > 0
    assert record.profiler.cuda_total > 0 and values["mean_kernel_time"] > 0
    if values["tensor_cores"]:
        assert "amp-not-used" in {f.id for f in result.diagnosis.findings}


def test_the_gpu_fixes_take_effect_on_a_real_device(tmp_path):
    out = tmp_path / "fixed"
    fixes = {"pin_memory": True, "cudnn_benchmark": True, "tf32": True, "amp_bf16": True}
    result = run_probe([str(SAMPLES / "cudnn_benchmark_off.py")],
                       ProbeOptions(out_dir=out, plan=PLAN, plugins=(plugin_spec(fixes),), python=sys.executable,
                                    child_output=out / "script-output.log"))
    trial = summarize_trial(1, "fixed", fixes, out, result.record, 0.0)
    assert result.record.settings.cudnn_benchmark is True
    assert {"pin_memory", "cudnn_benchmark"} <= set(trial.fixes_applied), trial.fix_details
    assert result.record.settings.dataloaders[0].pin_memory is True
