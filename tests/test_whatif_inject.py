"""The what-if's child side: fixes injected into a real script take effect, as its run record shows."""

from __future__ import annotations

import math
import textwrap
import time
from pathlib import Path

import pytest

from trainprobe.probe.config import WindowPlan
from trainprobe.probe.launch import ProbeOptions, run_probe
from trainprobe.whatif.inject import plugin_spec
from trainprobe.whatif.trials import summarize_trial

# A script that leaves everything the fixes change at its worst: no workers, zero_grad(set_to_none=False),
# anomaly detection on, fp32, a non-fused Adam, a conv model in the default memory format.
SCRIPT = textwrap.dedent('''
    import argparse
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset

    parser = argparse.ArgumentParser()
    parser.add_argument("--num-workers", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(512, 3, 8, 8), torch.randint(0, 4, (512,)))
    loader = DataLoader(data, batch_size=16, shuffle=True, num_workers=args.num_workers)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 8 * 8, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    torch.autograd.set_detect_anomaly(True)
    for epoch in range(20):
        for x, y in loader:
            optimizer.zero_grad(set_to_none=False)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
''')

PLAN = WindowPlan(warmup_steps=2, steady_min_steps=4, steady_seconds=0.3, profiler=False, cprofile=False,
                  max_seconds=60)

ALL_BUT_COMPILE = {
    "num_workers": 1, "persistent_workers": True, "prefetch_factor": 4, "set_to_none": True,
    "anomaly_off": True, "amp_bf16": True, "fused_optimizer": True, "channels_last": True,
    "cudnn_benchmark": True, "tf32": True, "torch_threads": 1, "record_loss": True,
}


def _spec(fixes: dict):
    fixes = dict(fixes)
    return plugin_spec(fixes, record_loss=fixes.pop("record_loss", True))


def _run(tmp_path: Path, name: str, fixes: dict, plan: WindowPlan = PLAN):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    out = tmp_path / name
    start = time.monotonic()
    result = run_probe([str(script)], ProbeOptions(out_dir=out, plan=plan, plugins=(_spec(fixes),),
                                                   child_output=out / "script-output.log"))
    return result.record, summarize_trial(1, name, fixes, out, result.record, time.monotonic() - start)


@pytest.mark.slow
def test_fixes_take_effect_in_the_record(tmp_path):
    base, base_trial = _run(tmp_path, "baseline", {"record_loss": True})
    fixed, trial = _run(tmp_path, "fixed", ALL_BUT_COMPILE)
    assert base.outcome.status == "stopped" and fixed.outcome.status == "stopped", fixed.outcome

    # The baseline shows the script as written...
    b = base.settings
    assert b.dataloaders[0].num_workers == 0
    assert b.anomaly_detection is True
    assert b.autocast_forwards == 0
    assert not b.optimizers[0].fused
    assert b.models[0].channels_last is False
    assert base_trial.fixes_applied == ()

    # ...and the fixed run shows every fix in force.
    s = fixed.settings
    loader = s.dataloaders[0]
    assert (loader.num_workers, loader.persistent_workers, loader.prefetch_factor) == (1, True, 4)
    assert s.anomaly_detection is False
    assert s.autocast_forwards > 0 and s.autocast_dtype == "bfloat16" and s.autocast_device == "cpu"
    assert s.optimizers[0].fused is True
    assert s.models[0].channels_last is True
    assert s.cudnn_benchmark is True
    assert s.float32_matmul_precision == "high"
    assert s.torch_threads == 1
    for fix in ("num_workers", "persistent_workers", "prefetch_factor", "set_to_none", "anomaly_off",
                "amp_bf16", "fused_optimizer", "channels_last", "torch_threads"):
        assert fix in trial.fixes_applied, (fix, trial.fixes_applied, trial.fix_details)
    assert "pin_memory" not in trial.fixes_applied  # no CUDA here: nothing to pin for

    # Both recorded the loss of the measured window: finite, near ln(4) at the start of training.
    for t in (base_trial, trial):
        assert len(t.losses) >= 4
        assert all(math.isfinite(v) and 0.5 < v < 3.0 for v in t.losses)


@pytest.mark.slow
def test_num_workers_alone_and_a_script_that_sets_its_own(tmp_path):
    """The override wins over the script's own value, and persistent_workers is not forced on by it."""
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    out = tmp_path / "run"
    result = run_probe([str(script), "--num-workers", "2"],
                       ProbeOptions(out_dir=out, plan=PLAN, plugins=(_spec({"num_workers": 1}),),
                                    child_output=out / "script-output.log"))
    loader = result.record.settings.dataloaders[0]
    assert (loader.num_workers, loader.persistent_workers) == (1, False)
    assert (out / "script-output.log").exists()


@pytest.mark.slow
def test_compile_is_injected(tmp_path):
    plan = WindowPlan(warmup_steps=3, steady_min_steps=3, steady_seconds=0.2, profiler=False, cprofile=False,
                      max_seconds=150)
    record, trial = _run(tmp_path, "compiled", {"compile": True, "record_loss": True}, plan)
    assert record.outcome.status == "stopped", record.outcome
    assert record.settings.compiled is True
    assert "compile" in trial.fixes_applied
    assert trial.step_time is not None
