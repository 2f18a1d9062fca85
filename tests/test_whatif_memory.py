"""The what-if's memory fixes, applied in this process on real torch objects: gradient accumulation at half the
batch makes the same update as the full batch; checkpointing the repeated blocks keeps the same gradients with
less kept for backward; and the verification reports each one's peak memory beside its speed."""

from __future__ import annotations

import copy
import os
import sys
from dataclasses import replace

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from trainprobe.findings import Trial
from trainprobe.probe.plugins import PluginContext
from trainprobe.probe.settings import Registry
from trainprobe.whatif.fixes import REGISTRY
from trainprobe.whatif.inject import FixApplier
from trainprobe.whatif.plan import plan_candidates
from trainprobe.whatif.session import Outcome
from trainprobe.whatif.trials import interval, pair_ratios
from trainprobe.whatif.verify import _verification

sys.path.insert(0, os.path.dirname(__file__))
torch.manual_seed(0)


def _applier(fixes: dict, events: list) -> FixApplier:
    applier = FixApplier({"fixes": fixes})
    applier.install(PluginContext(emit=lambda kind, **f: events.append((kind, f)), registry=Registry(),
                                  position=lambda: (0, "steady")))
    return applier


def _train(model, loader, zero_grad_first: bool):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=100)  # wraps opt.step: must keep working
    for x, y in loader:
        if zero_grad_first:
            opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
        scheduler.step()
        if not zero_grad_first:
            opt.zero_grad()


@pytest.mark.parametrize("zero_grad_first", [True, False], ids=["zero_grad-first", "zero_grad-last"])
def test_accumulation_at_half_the_batch_makes_the_same_update_as_the_full_batch(zero_grad_first):
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    reference = nn.Linear(5, 1)
    model = copy.deepcopy(reference)
    _train(reference, DataLoader(TensorDataset(x, y), batch_size=8), zero_grad_first)
    events: list = []
    applier = _applier({"grad_accumulation": 2}, events)
    try:
        loader = DataLoader(TensorDataset(x, y), batch_size=8)
        assert loader.batch_size == 4
        _train(model, loader, zero_grad_first)  # 4 micro-batches: 2 updates, as the reference's 2
    finally:
        applier.finish()
        applier.uninstall()
    for a, b in zip(model.parameters(), reference.parameters()):
        assert torch.allclose(a, b, atol=1e-6)
    applied = dict(events)["fixes_applied"]
    assert applied["fixes"] == ["grad_accumulation"]
    assert any("batch_size 8 -> 4" in f["text"] for kind, f in events if kind == "note")
    assert torch.optim.Optimizer.zero_grad is not None and DataLoader(TensorDataset(x), batch_size=8).batch_size == 8


def test_without_a_loader_batch_to_halve_accumulation_changes_nothing():
    events: list = []
    applier = _applier({"grad_accumulation": 2}, events)
    try:
        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        before = model.weight.detach().clone()
        model(torch.ones(2, 3)).sum().backward()
        opt.step()  # no loader was halved: every step updates
        assert not torch.equal(before, model.weight)
    finally:
        applier.finish()
        applier.uninstall()
    assert dict(events)["fixes_applied"]["fixes"] == []


class _Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(x)))


class _Stack(nn.Module):
    def __init__(self, dim: int = 32, depth: int = 4) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(_Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def _saved_bytes_and_grads(model, x):
    saved = []

    def pack(t):
        saved.append(t.numel() * t.element_size())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = model(x).pow(2).mean()
    loss.backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    return sum(saved), grads


@pytest.mark.parametrize("container", ["blocks", True], ids=["named", "found"])
def test_checkpointing_the_blocks_keeps_the_gradients_and_less_for_backward(container):
    model, x = _Stack(), torch.randn(64, 32)
    plain_saved, plain_grads = _saved_bytes_and_grads(model, x)
    events: list = []
    applier = _applier({"activation_checkpointing": container}, events)
    try:
        applier.before_forward(model, (x,))  # the first forward: the fix wraps the blocks
        applier.after_forward()
        saved, grads = _saved_bytes_and_grads(model, x)
        with torch.no_grad():  # an evaluation forward runs as before
            model(x)
    finally:
        applier.finish()
        applier.uninstall()
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(grads, plain_grads))
    # Each block keeps its input (64x32 floats) instead of its 3 hidden activations of 64x128.
    assert saved < plain_saved / 2
    assert all("forward" not in vars(block) for block in model.blocks)  # undone
    assert "4 blocks of" in " ".join(dict(events)["fixes_applied"]["details"])


def _oom_with_blocks():
    """The rule cases' counted CPU step, out of memory, with 4 repeated blocks counted."""
    from rule_cases.cases import counted_cpu_step
    from rule_cases.records import MIB, with_outcome
    from trainprobe.record import BlockMemory
    rec = counted_cpu_step(blocks=(BlockMemory(container="blocks", block_type="Block", count=4, saved=60 * MIB,
                                               inputs=4 * MIB),))
    return with_outcome(rec, status="failed", oom=True, exception_type="RuntimeError")


def test_a_memory_finding_measures_checkpointing_and_accumulation_each_on_its_own():
    from trainprobe.engine import apply_rules as diagnose
    record = _oom_with_blocks()
    diagnosis = diagnose(record)
    finding = next(f for f in diagnosis.findings if f.id == "memory-near-limit")
    assert finding.fix_id == "activation_checkpointing"
    candidates, _decided, answers = plan_candidates(record, diagnosis)
    assert answers["memory-near-limit"] == ["activation_checkpointing=blocks", "grad_accumulation=2"]
    assert {c.key: c.fixes for c in candidates if c.key in answers["memory-near-limit"]} == {
        "activation_checkpointing=blocks": {"activation_checkpointing": "blocks"},
        "grad_accumulation=2": {"grad_accumulation": 2}}


def test_the_trials_of_memory_fixes_run_the_counting_step_and_the_others_do_not(tmp_path):
    from types import SimpleNamespace
    from rule_cases.cases import counted_cpu_step
    from trainprobe.whatif.fixes import Candidate
    from trainprobe.whatif.session import Session

    plans = []

    def run(target, options):
        plans.append(options.plan.census)
        return SimpleNamespace(record=counted_cpu_step())

    for fix_id, value in (("grad_accumulation", 2), ("set_to_none", True)):
        plans.clear()
        session = Session(["train.py"], tmp_path / fix_id, budget=1e6, python="python", run=run)
        outcome = session.run([Candidate(fix_id, fix_id, {fix_id: value})])
        assert plans and set(plans) == {REGISTRY[fix_id].memory}
        if REGISTRY[fix_id].memory:
            assert all(t.memory_peak == 100 * 2 ** 20 for t in outcome.trials)  # the counted step's peak


def _trial(label: str, step_time: float, peak: int, oom: bool = False, applied=()) -> Trial:
    return Trial(label=label, step_time=step_time, memory_peak=peak, oom=oom, fixes_applied=tuple(applied),
                 steps=10)


def test_the_verification_reports_peak_memory_beside_speed():
    from trainprobe.whatif.fixes import Candidate
    ckpt = Candidate("activation_checkpointing=blocks", "activation_checkpointing",
                     {"activation_checkpointing": "blocks"})
    accum = Candidate("grad_accumulation=2", "grad_accumulation", {"grad_accumulation": 2})
    out = Outcome()
    mib = 2 ** 20
    base = [_trial("baseline", 0.100, 900 * mib, oom=True), _trial("baseline", 0.104, 910 * mib, oom=True)]
    out.pairs[ckpt.key] = [(b, _trial(ckpt.key, 0.130, 500 * mib, applied=["activation_checkpointing"]))
                           for b in base]
    out.pairs[accum.key] = [(b, _trial(accum.key, 0.110, 880 * mib, applied=["grad_accumulation"])) for b in base]
    for key, pairs in out.pairs.items():
        out.results[key] = interval(pair_ratios(pairs))
    v = _verification([ckpt, accum], out)
    assert v.status == "measured"
    text = v.text
    assert text.startswith("measured: activation_checkpointing=blocks: peak memory 500 MiB with it, 905 MiB "
                           "without (-45%); ran out of memory in 0 of 2 trials with it, 2 of 2 without; steps 1.27× slower")
    assert "× slower (" in text.split(";")[2]
    # Accumulation saved 3%: less than the 5% every pair must save to count.
    assert "grad_accumulation=2: peak memory 880 MiB with it, 905 MiB without (-3%)" in text
    assert v.speedup == pytest.approx(out.results[ckpt.key].median)


# A real script for the memory fixes in a real child: repeated blocks in a ModuleList, an LR scheduler (it wraps
# optimizer.step), a DataLoader with a literal batch size.
SCRIPT = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(64, 512), nn.Linear(512, 64)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(4))
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,))), batch_size=256,
                        shuffle=True)
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1000)
    for epoch in range(50):
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
'''


@pytest.mark.slow
def test_memory_fixes_lower_the_peak_in_a_real_run_and_the_probe_keeps_its_step_count(tmp_path):
    from trainprobe.probe.launch import ProbeOptions, run_probe
    from trainprobe.whatif.inject import plugin_spec
    from trainprobe.whatif.trials import summarize_trial, trial_plan

    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    trials = {}
    for name, fixes in (("baseline", {}), ("checkpointing", {"activation_checkpointing": "blocks"}),
                        ("accumulation", {"grad_accumulation": 2})):
        out = tmp_path / name
        plan = replace(trial_plan(max_seconds=90, memory=True), steady_seconds=0.5)
        result = run_probe([str(script)], ProbeOptions(out_dir=out, plan=plan, plugins=(plugin_spec(fixes),),
                                                       child_output=out / "script-output.log"))
        assert result.record.outcome.status == "stopped", result.record.outcome
        trials[name] = (result.record, summarize_trial(1, name, fixes, out, result.record, 1.0))
    base, ckpt, accum = (trials[k][1] for k in ("baseline", "checkpointing", "accumulation"))
    assert ckpt.fixes_applied == ("activation_checkpointing",) and accum.fixes_applied == ("grad_accumulation",)
    # Checkpointed blocks keep their inputs only: the counted step's peak falls.
    assert ckpt.memory_peak < base.memory_peak * 0.9
    assert accum.memory_peak < base.memory_peak * 0.9  # half the batch's activations at a time
    # The recomputation in backward is not a new forward of a new model...
    assert [m.type.rsplit(".", 1)[-1] for m in trials["checkpointing"][0].settings.models] == ["Net"]
    # ...and a step of the accumulation run is one update: two micro-batches, as many samples as the baseline's.
    steady = [s for s in trials["accumulation"][0].steps if s.phase == "steady"]
    assert steady and all(s.batches == 2 and s.samples == 256 for s in steady)
