"""Weights that get gradients no optimizer applies: the probe's reading (probe/unoptimized.py), its facts and the
rule gradients-for-unoptimized-weights, on modules built here and on a real run of the gallery's sample."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch import nn

from trainprobe.engine import load_rules
from trainprobe.engine.evaluate import evaluate_rules
from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.probe.settings import Registry
from trainprobe.probe.unoptimized import CHECKS, GradTally
from trainprobe.record import ProfilerSummary, ModuleTime, RunRecord, Settings, UnoptimizedGrads

RULES, _ = load_rules()


class WithLossNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 16)
        self.loss_net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 8))

    def forward(self, x):
        return self.loss_net(self.body(x)).square().mean()


def _backward(model, *inputs):
    model(*inputs).backward()


def _read(models, optimizers) -> UnoptimizedGrads | None:
    tally = GradTally()
    tally.check([(m, "train.py:7") for m in models], optimizers)
    return tally.result


def test_a_trainable_module_outside_the_optimizer_is_found_and_named_by_its_attribute():
    model = WithLossNetwork()
    optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)
    _backward(model, torch.randn(4, 16))
    found = _read([model], [optimizer])
    loss_net = sum(p.numel() for p in model.loss_net.parameters())
    assert found.params == loss_net and found.tensors == 4
    assert found.optimized_params == sum(p.numel() for p in model.body.parameters())
    assert found.children == ("loss_net",)
    assert found.modules == {"loss_net (torch.nn.modules.container.Sequential)": loss_net}
    assert found.model_built_at == "train.py:7"


def test_nothing_is_found_where_the_module_is_frozen_or_in_an_optimizer():
    model = WithLossNetwork()
    model.loss_net.requires_grad_(False)
    _backward(model, torch.randn(4, 16))
    assert _read([model], [torch.optim.SGD(model.body.parameters(), lr=0.1)]) is None
    model = WithLossNetwork()
    _backward(model, torch.randn(4, 16))
    assert _read([model], [torch.optim.SGD(model.parameters(), lr=0.1)]) is None
    # Two optimizers, one of them not stepped yet (a GAN's second): both hold weights.
    assert _read([model], [torch.optim.SGD(model.body.parameters(), lr=0.1),
                           torch.optim.Adam(model.loss_net.parameters())]) is None


def test_a_run_whose_gradients_all_miss_the_optimizers_is_left_alone():
    """An optimizer over fp32 master copies (apex, DeepSpeed) or flattened weights (FSDP), or updates by hand:
    none of the model's weights are in an optimizer, and that is not a module left out."""
    model = WithLossNetwork()
    _backward(model, torch.randn(4, 16))
    masters = [p.detach().clone().requires_grad_(True) for p in model.parameters()]
    assert _read([model], [torch.optim.SGD(masters, lr=0.1)]) is None


def test_a_model_of_its_own_that_no_optimizer_holds_is_named_as_a_whole():
    student, teacher = nn.Linear(16, 8), nn.Sequential(nn.Linear(16, 32), nn.Linear(32, 8))
    x = torch.randn(4, 16)
    (student(x) - teacher(x)).square().mean().backward()  # the teacher left trainable, its output not detached
    found = _read([student, teacher], [torch.optim.SGD(student.parameters(), lr=0.1)])
    assert found.params == sum(p.numel() for p in teacher.parameters())
    assert list(found.modules) == ["torch.nn.modules.container.Sequential (a model of its own)"]


def test_the_reading_with_the_most_is_kept_and_only_the_first_steps_are_read():
    model = WithLossNetwork()
    optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)
    tally = GradTally()
    tally.check([(model, None)], [optimizer])  # no backward yet: no gradients, nothing found
    assert tally.result is None
    _backward(model, torch.randn(4, 16))
    tally.check([(model, None)], [optimizer])
    first = tally.result
    assert first is not None
    for _ in range(CHECKS):
        tally.check([(model, None)], [optimizer])
    assert tally.checks == CHECKS and tally.result == first


def test_the_registry_counts_an_optimizer_that_was_built_and_not_stepped():
    """A GAN steps its discriminator's optimizer first: the generator's, built and alive, holds its weights."""
    reg = Registry()
    reg.sites.note(opt := torch.optim.SGD([nn.Parameter(torch.zeros(3))], lr=0.1), None)
    assert reg.sites.alive(torch.optim.Optimizer) == [opt]


def _record(found: UnoptimizedGrads, backward: float | None) -> RunRecord:
    times = (ModuleTime(name="loss_net", forward_per_step=0.1, backward_per_step=backward),
             ModuleTime(name="body", forward_per_step=0.01, backward_per_step=0.02)) if backward else ()
    return RunRecord(settings=Settings(unoptimized_grads=found), profiler=ProfilerSummary(module_times=times))


def test_the_facts_sum_the_backward_of_the_children_left_out():
    found = UnoptimizedGrads(params=90_000, tensors=4, optimized_params=10_000, children=("loss_net",),
                             modules={"loss_net (torch.nn.modules.container.Sequential)": 90000},
                             model_built_at="/run/train.py:12")
    facts = facts_by_name(compute_facts(_record(found, 0.3)))
    assert facts["unoptimized_grad_params"] == 90_000
    assert facts["unoptimized_grad_share"] == pytest.approx(0.9)
    assert facts["unoptimized_grad_backward"] == pytest.approx(0.3)
    assert facts["unoptimized_grad_where"] == "loss_net (torch.nn.modules.container.Sequential), 90,000 weights"
    assert facts["unoptimized_grad_model_at"].endswith("train.py:12")
    assert facts_by_name(compute_facts(RunRecord()))["unoptimized_grad_params"] is None


def test_the_rule_fires_above_its_bars_only():
    found = UnoptimizedGrads(params=90_000, tensors=4, optimized_params=10_000, children=("loss_net",),
                             modules={"loss_net (torch.nn.modules.container.Sequential)": 90000})
    values = facts_by_name(compute_facts(_record(found, None)))
    fired = {f.id: f for f in evaluate_rules(RULES, values)[0]}
    assert fired["gradients-for-unoptimized-weights"].severity == "info"  # no backward measured: no gain
    small = dataclasses.replace(found, params=400, optimized_params=10_000)
    values = facts_by_name(compute_facts(_record(small, None)))
    assert "gradients-for-unoptimized-weights" not in {f.id for f in evaluate_rules(RULES, values)[0]}


@pytest.mark.slow
def test_the_gallerys_unfrozen_loss_network_is_found_in_a_real_run_and_its_fix_silences_it(tmp_path):
    """sample_scripts/unfrozen_loss_network.py: its feature network (130,176 weights) is made after the optimizer
    and left trainable; with --freeze it is made frozen."""
    from probe_helpers import ROOT, diagnose
    script = str(ROOT / "sample_scripts" / "unfrozen_loss_network.py")
    proc, record = diagnose(tmp_path / "planted", script, timeout=300)
    assert proc.returncode == 0, proc.stderr
    facts = facts_by_name(compute_facts(record))
    assert facts["unoptimized_grad_params"] == 130_176 and facts["unoptimized_grad_share"] > 0.9
    assert facts["unoptimized_grad_where"].startswith("_features (torch.nn.modules.container.Sequential)")
    assert facts["unoptimized_grad_model_at"] == "sample_scripts/unfrozen_loss_network.py:74" or \
        facts["unoptimized_grad_model_at"].endswith("unfrozen_loss_network.py:74")
    findings = {f.id: f for f in evaluate_rules(RULES, facts)[0]}
    assert "gradients-for-unoptimized-weights" in findings
    proc, record = diagnose(tmp_path / "fixed", script, "--", "--freeze", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert facts_by_name(compute_facts(record))["unoptimized_grad_params"] is None
