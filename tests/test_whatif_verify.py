"""`trainprobe diagnose --verify` and `trainprobe verify` end to end, on a real input-bound script."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from trainprobe.record import RunRecord

# Each batch costs ~25 ms of Python in __getitem__ and the model almost nothing: input-bound with 0 workers.
SCRIPT = textwrap.dedent('''
    import time
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, Dataset

    class Slow(Dataset):
        def __len__(self):
            return 100000
        def __getitem__(self, i):
            end = time.perf_counter() + 0.0015
            while time.perf_counter() < end:
                pass
            return torch.full((32,), float(i % 7)), i % 4

    if __name__ == "__main__":
        torch.set_num_threads(1)
        model = nn.Linear(32, 4)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        for x, y in DataLoader(Slow(), batch_size=16, shuffle=True):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
''')


def _cli(*args: str, timeout: float = 170) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trainprobe", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
def test_diagnose_verify_measures_the_worker_fix(tmp_path):
    """The budget leaves room for the baseline and a worker trial on a slow machine: at 25 s the baseline alone
    used it up on the dev VM on 2026-11-29 (its first step 7.6 s after the start), and the finding said "not tried:
    the --verify-budget ran out before it (raise the budget)", as it should."""
    script = tmp_path / "input_bound.py"
    script.write_text(SCRIPT)
    out = tmp_path / "run"
    proc = _cli("diagnose", "-o", str(out), "--no-profile", "--warmup-steps", "2", "--window", "2",
                "--verify", "--verify-budget", "60", "--json", str(script))
    assert proc.returncode == 0, proc.stderr
    assert "what-if: trying num_workers=" in proc.stderr  # the progress display
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    findings = {f["id"]: f for f in summary["findings"]}
    verification = findings["dataloader-too-few-workers"]["verification"]
    assert verification["status"] in ("measured", "no_gain")
    assert verification["n"] >= 1 and verification["speedup"] > 0
    assert verification["text"].startswith(("measured:", "no measurable gain here:", "not confirmed:"))
    assert summary["whatif"]["trials"] >= 2

    whatif = json.loads((out / "diagnosis.json").read_text())["whatif"]
    assert whatif["elapsed"] < 25 + 15  # the budget, plus one trial's overrun at most
    trials = whatif["trials"]
    assert trials[0]["label"] == "baseline" and trials[0]["losses"]
    worker_trials = [t for t in trials if t["label"].startswith("num_workers=")]
    assert worker_trials
    # The trial really ran with the workers it claims: its own run record says so.
    first = worker_trials[0]
    record = RunRecord.load(Path(first["out_dir"]) / "run.json")
    assert record.settings.dataloaders[0].num_workers == first["fixes"]["num_workers"]
    assert "num_workers" in first["fixes_applied"]
    # The script's output went to the trial's log, not the terminal; the report carries the what-if.
    assert (Path(first["out_dir"]) / "script-output.log").exists()
    assert "What-if" in (out / "report.html").read_text()
    # A re-render from the saved record keeps what the what-if measured.
    (out / "report.html").unlink()
    again = _cli("report", str(out / "run.json"), "--json")
    assert again.returncode == 0, again.stderr
    rerendered = {f["id"]: f for f in json.loads(again.stdout.strip().splitlines()[-1])["findings"]}
    assert rerendered["dataloader-too-few-workers"]["verification"] == verification
    assert verification["text"] in (out / "report.html").read_text()


@pytest.mark.slow
def test_verify_a_saved_run_within_a_tiny_budget(tmp_path):
    script = tmp_path / "input_bound.py"
    script.write_text(SCRIPT)
    out = tmp_path / "run"
    assert _cli("diagnose", "-q", "-o", str(out), "--no-profile", "--warmup-steps", "2", "--window", "2",
                str(script)).returncode == 0
    proc = _cli("verify", str(out / "run.json"), "--budget", "5", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    verification = {f["id"]: f["verification"] for f in summary["findings"]}["dataloader-too-few-workers"]
    # The first baseline alone outlasts 5 s: nothing else is tried, and the finding says why.
    assert verification["status"] == "not_run" and "budget" in verification["text"]
    assert len(json.loads((out / "diagnosis.json").read_text())["whatif"]["trials"]) == 1


SPAWN_UNSAFE = textwrap.dedent('''
    import torch, torch.nn as nn, torch.multiprocessing as mp
    from torch.utils.data import DataLoader, TensorDataset, default_collate
    mp.set_start_method("spawn", force=True)
    data = TensorDataset(torch.randn(4096, 8), torch.randint(0, 2, (4096,)))
    model = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(100):
        for x, y in DataLoader(data, batch_size=8, collate_fn=lambda b: default_collate(b)):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
''')


@pytest.mark.slow
def test_a_fix_that_breaks_the_script_is_reported_and_not_retried(tmp_path):
    """Workers under spawn cannot pickle a lambda collate_fn: the trial fails, and the what-if says why."""
    from trainprobe.whatif.plan import Candidate
    from trainprobe.whatif.session import Session
    from trainprobe.whatif.verify import _verification

    script = tmp_path / "spawn_unsafe.py"
    script.write_text(SPAWN_UNSAFE)
    candidate = Candidate("num_workers=1", "num_workers", {"num_workers": 1})
    outcome = Session([str(script)], tmp_path / "verify", 60, sys.executable).run([candidate])
    assert [t.label for t in outcome.trials] == ["baseline", "num_workers=1"]  # not retried
    verification = _verification([candidate], outcome)
    assert verification.status == "failed"
    assert "PicklingError" in verification.text


@pytest.mark.slow
def test_a_fixs_hooks_and_wrapped_forwards_stay_out_of_the_scripts_own_checkpoints(tmp_path):
    """channels_last puts a forward hook on the model and activation checkpointing wraps each block's
    forward in a closure of ours: a script that saves its whole model during a trial must save it as
    python would, neither failing on the closure nor putting trainprobe into its file."""
    from trainprobe.whatif.trials import run_trial, trial_plan

    checkpoint = tmp_path / "model.pt"
    script = Path(__file__).parent / "scripts" / "saves_conv_blocks.py"
    trial = run_trial(1, "both", [str(script), str(checkpoint)], {"channels_last": True, "activation_checkpointing": True},
                      tmp_path / "trial", trial_plan(max_seconds=30), 90, sys.executable)
    assert trial.ok, trial.reason
    assert set(trial.fixes_applied) >= {"channels_last", "activation_checkpointing"}, trial
    assert b"trainprobe" not in checkpoint.read_bytes()
    loaded = subprocess.run([sys.executable, "-c", f"import torch; m = torch.load({str(checkpoint)!r}, "
                             "weights_only=False); print(len(m._forward_pre_hooks), sum('forward' in b.__dict__ "
                             "for b in m.children()))"], capture_output=True, text=True, cwd=script.parent)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.split() == ["0", "0"]
