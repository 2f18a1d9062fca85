"""The counting step against analytic counts: FLOPs of four kinds of model, and the memory they hold.

Each model runs one real training step (forward, backward, an Adam update) under the census, with
the phases set as the probe's clock would set them. The FLOP counts are checked against formulas
written from the models' shapes in benchmarks/flop_accuracy.py (2 FLOPs per multiply-add of the matrix products, the
convention of every MFU figure), within 5%; the parameter, gradient and optimizer-state bytes
against what the tensors hold, within 1%.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import flop_accuracy  # noqa: E402  (benchmarks/flop_accuracy.py: the models and their analytic counts)

torch.manual_seed(0)


def _count(model: nn.Module, make_loss, steps: int = 1):
    """Run ``steps`` training steps of ``model`` under a census; the census's record parts."""
    case = flop_accuracy.Case("test", lambda: (model, make_loss), 0, 0)
    result, _, opt = flop_accuracy.count(case, steps)
    return result, opt


def _close(counted: float, analytic: float, tolerance: float = 0.05) -> bool:
    return abs(counted - analytic) <= tolerance * analytic


@pytest.mark.parametrize("case", flop_accuracy.CASES, ids=lambda c: c.name.split(" ")[0])
def test_the_flop_count_matches_the_analytic_count(case):
    """An MLP, a convnet, an attention block and an embedding + LSTM: within 5%, forward and all."""
    flops = flop_accuracy.count(case)[0]["flops"]
    assert _close(flops["flops"], case.analytic), (flops["flops"], case.analytic)
    assert _close(flops["by_phase"]["forward"], case.forward), (flops["by_phase"], case.forward)
    assert flops["uncounted"] == []  # the CPU's LSTM and attention kernels are counted, not listed
    assert set(flops["by_dtype"]) == {"fp32"}


def test_the_held_memory_matches_what_the_tensors_hold():
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
    x, y = torch.randn(32, 256), torch.randint(0, 10, (32,))
    result, opt = _count(model, lambda m: F.cross_entropy(m(x), y))
    memory = result["memory"]
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    assert _close(memory["parameters"], params, 0.01)
    assert _close(memory["gradients"], params, 0.01)
    state = sum(v.numel() * v.element_size() for s in opt.state.values() for v in s.values() if torch.is_tensor(v))
    assert _close(memory["optimizer_state"], state, 0.01)
    assert _close(memory["optimizer_state"], 2 * params, 0.01)  # Adam: two moments per parameter
    hidden = 32 * 512 * 4
    assert memory["saved_activations"] >= hidden  # at least the hidden layer's output was kept for backward
    assert memory["peak_phase"] in ("forward", "backward", "optimizer")
    assert memory["retained_per_step"] is None  # one counted step: nothing to say about what outlives a step


def test_a_loop_that_keeps_every_steps_graph_is_seen_growing_and_a_clean_one_is_not():
    model = nn.Sequential(nn.Linear(64, 256), nn.Tanh(), nn.Linear(256, 1))
    x = torch.randn(16, 64)
    probe_batch = torch.randn(16, 64)
    kept: list[torch.Tensor] = []

    def leaky(m):
        kept.append(m(probe_batch))  # predictions kept for a metric, with the graph no backward frees
        return m(x).pow(2).mean()

    leak, _ = _count(model, leaky, steps=2)
    clean, _ = _count(model, lambda m: m(x).pow(2).mean(), steps=2)
    assert leak["memory"]["retained_per_step"] >= 16 * 256 * 4  # at least the hidden activation of a step
    site = max(leak["memory"]["retained_sites"], key=leak["memory"]["retained_sites"].get)
    assert site.startswith(__file__)  # named by the line of the user's code that made them
    assert clean["memory"]["retained_per_step"] == 0
