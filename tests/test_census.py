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

from trainprobe.probe.census import Census  # noqa: E402

torch.manual_seed(0)


def _count(model: nn.Module, make_loss, steps: int = 1):
    """Run ``steps`` training steps of ``model`` under a census; the census's record parts."""
    case = flop_accuracy.Case("test", lambda: (model, make_loss), 0, 0)
    result, _, opt = flop_accuracy.count(case, steps)
    return result, opt


def _close(counted: float, analytic: float, tolerance: float = 0.05) -> bool:
    return abs(counted - analytic) <= tolerance * analytic


@pytest.mark.slow  # over a second: the quick loop stays under its minute
@pytest.mark.parametrize("case", flop_accuracy.CASES, ids=lambda c: c.name.split(" ")[0])
def test_the_flop_count_matches_the_analytic_count(case):
    """An MLP, a convnet, an attention block and an embedding + LSTM: within 5%, forward and all."""
    flops = flop_accuracy.count(case)[0]["flops"]
    assert _close(flops["flops"], case.analytic), (flops["flops"], case.analytic)
    assert _close(flops["by_phase"]["forward"], case.forward), (flops["by_phase"], case.forward)
    assert flops["uncounted"] == []  # the CPU's LSTM and attention kernels are counted, not listed
    assert set(flops["by_dtype"]) == {"fp32"}


@pytest.mark.slow  # over a second: the quick loop stays under a minute
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


@pytest.mark.slow  # over a second: the quick loop stays under a minute
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


class _Tagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 256), nn.Tanh())
        self.head = nn.Linear(256, 1000)

    def forward(self, x):
        return self.head(self.body(x))  # the line that makes the logits


def test_kept_outputs_are_named_by_the_line_that_made_them_and_the_loop_line_that_called_the_model():
    """Outputs kept in a list after their backward: one tensor a step (the logits), made in the model's forward,
    called from the loop; backward freed their graph, so nothing else stays."""
    model, x = _Tagger(), torch.randn(16, 64)
    kept: list[torch.Tensor] = []

    def keep(m):
        out = m(x)  # the loop's call
        kept.append(out)
        return out.pow(2).mean()

    result, _ = _count(model, keep, steps=2)
    memory = result["memory"]
    assert memory["retained_per_step"] == 16 * 1000 * 4 and memory["retained_storages"] == 1
    assert memory["retained_phases"] == {"forward": 16 * 1000 * 4}
    (site,) = memory["retained_sites"]
    (caller,) = memory["retained_callers"]
    source = open(__file__, encoding="utf-8").read().splitlines()
    assert site.startswith(__file__) and "the line that makes the logits" in source[int(site.rsplit(":", 1)[1]) - 1]
    assert caller.startswith(__file__) and "the loop's call" in source[int(caller.rsplit(":", 1)[1]) - 1]


def test_a_forward_that_never_gets_a_backward_leaves_its_whole_graph():
    model, x = _Tagger(), torch.randn(16, 64)
    kept: list[torch.Tensor] = []

    def monitor(m):
        kept.append(m(x[:4]))  # no backward ever runs on these: their saved tensors stay
        return m(x).pow(2).mean()

    result, _ = _count(model, monitor, steps=2)
    # The output, and what the graph saved for a backward that never comes (tanh keeps its result).
    assert result["memory"]["retained_storages"] == 2
    assert result["memory"]["retained_per_step"] == 4 * (256 + 1000) * 4


def test_the_counted_input_and_the_process_memory_are_recorded():
    model = nn.Sequential(nn.Linear(32, 32))
    phase = ["data_wait"]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    census = Census(phase=lambda: phase[0], steps=1)
    census.start(0, [model], [opt])
    x = torch.randn(8, 32)
    census.note_input(x)
    census.note_input(torch.randn(2, 32))  # a later forward of the same step: the first one is the counted input
    phase[0] = "forward"
    loss = model(x).sum()
    phase[0] = "backward"
    loss.backward()
    census.boundary(samples=8, duration=0.01)
    census.stop()
    memory = census.result()["memory"]
    assert (memory["input_shape"], memory["input_elements"]) == ("8x32", 256)
    # /proc/self/status on Linux (the probe's platform): resident <= data segment <= address space, all non-zero.
    assert 0 < memory["resident_at_start"] <= memory["address_space_at_start"]
    assert 0 < memory["data_at_start"] <= memory["address_space_at_start"]


def test_a_batch_held_one_step_ahead_is_settled_as_held_and_a_kept_tensor_as_growth():
    """A loader that fetches one batch ahead (accelerate's, Lightning's) keeps the next batch alive a
    whole step after the step that made it, like a leak would; one step later it is gone, and a leak
    is not (Census.settle, called by the probe at the end of the step after the count)."""
    phase = {"now": None}
    census = Census(phase=lambda: phase["now"], steps=2)
    model = nn.Linear(8, 1)
    kept: list[torch.Tensor] = []

    def fetch() -> torch.Tensor:
        phase["now"] = "data_wait"
        batch = torch.randn(32, 8)
        phase["now"] = None
        return batch

    def train(batch: torch.Tensor) -> None:
        model.zero_grad(set_to_none=True)  # last step's gradients go: only the batches stay in question
        phase["now"] = "forward"
        loss = model(batch).pow(2).mean()
        phase["now"] = "backward"
        loss.backward()
        phase["now"] = None

    census.start(0, [model], [])
    current, upcoming = fetch(), fetch()  # the loader's first batch, and the next one, fetched ahead
    kept.append(fetch() * 2)  # a leak: a tensor made in the step and kept for good
    train(current)
    census.boundary(32, 0.01)
    current, upcoming = upcoming, fetch()  # step 2: the held batch is used, the next one fetched
    train(current)
    assert census.boundary(32, 0.01)
    census.stop()
    batch = 32 * 8 * 4
    assert census.retained == 2 * batch  # both outlived their step: the held batch, and the leak
    current, upcoming = upcoming, fetch()  # the step after the count: the held batch is let go
    train(current)
    census.settle()
    assert census.held_one_step == batch and census.retained == batch and census.retained_storages == 1
    memory = census.result()["memory"]
    assert memory["retained_per_step"] == batch and memory["held_one_step"] == batch


@pytest.mark.parametrize("every_step", [False, True], ids=["kept once", "kept every step"])
def test_a_tensor_kept_once_is_not_growth_and_one_kept_every_step_is(every_step):
    """Growth every step means the second counted step leaves memory behind too. A buffer made once,
    late, and kept (test set 12's Lightning VAE kept 15 MiB from one backward, in a one-process DDP)
    outlives its step like a leak, but the step after it adds nothing: it is kept_once, not growth."""
    phase = {"now": None}
    census = Census(phase=lambda: phase["now"], steps=2)
    model = nn.Linear(8, 1)
    kept: list[torch.Tensor] = []

    def step(keep: bool) -> None:
        model.zero_grad(set_to_none=True)
        batch = torch.randn(32, 8)
        phase["now"] = "forward"
        loss = model(batch).pow(2).mean()
        phase["now"] = "backward"
        loss.backward()
        if keep:
            kept.append(torch.zeros(1000))  # made in the backward, kept for good
        phase["now"] = None

    census.start(0, [model], [])
    step(keep=True)
    census.boundary(32, 0.01)
    step(keep=every_step)
    assert census.boundary(32, 0.01)
    census.stop()
    assert census.retained == 1000 * 4  # outlived its step, growth or not
    step(keep=every_step)  # the step after the count
    census.settle()
    memory = census.result()["memory"]
    if every_step:
        assert (memory["retained_per_step"], memory["kept_once"]) == (1000 * 4, None)
    else:
        assert (memory["retained_per_step"], memory["kept_once"]) == (0, 1000 * 4)
