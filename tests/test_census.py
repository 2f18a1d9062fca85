"""The counting step against analytic counts: FLOPs of four kinds of model, and the memory they hold.

Each model runs one real training step (forward, backward, an Adam update) under the census, with
the phases set as the probe's clock would set them. The FLOP counts are checked against formulas
written here from the models' shapes (2 FLOPs per multiply-add of the matrix products, the
convention of every MFU figure), within 5%; the parameter, gradient and optimizer-state bytes
against what the tensors hold, within 1%.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from trainprobe.probe.census import Census

torch.manual_seed(0)


def _count(model: nn.Module, make_loss, steps: int = 1):
    """Run ``steps`` training steps of ``model`` under a census; the census's record parts."""
    phase = ["data_wait"]
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    # One step before the count, as warm-up gives: Adam's state exists when the count begins.
    make_loss(model).backward()
    opt.step()
    opt.zero_grad()
    census = Census(phase=lambda: phase[0], steps=steps)
    census.start(0, [model], [opt])
    for _ in range(steps):
        phase[0] = "forward"
        loss = make_loss(model)
        phase[0] = "backward"
        loss.backward()
        phase[0] = "optimizer"
        census.before_optimizer_step(opt)
        opt.step()
        census.after_optimizer_step(opt)
        phase[0] = "other"
        opt.zero_grad()
        done = census.boundary(samples=8, duration=0.01)
    assert done
    census.stop()
    return census.result(), opt


def _close(counted: float, analytic: float, tolerance: float = 0.05) -> bool:
    return abs(counted - analytic) <= tolerance * analytic


def _linear(batch: int, n_in: int, n_out: int, grad_input: bool) -> int:
    """Forward, weight gradient and (when the input needs one) input gradient of a Linear layer."""
    one = 2 * batch * n_in * n_out
    return one * (3 if grad_input else 2)


def test_an_mlps_flops_match_the_analytic_count():
    batch, sizes = 64, (256, 512, 512, 10)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    x, y = torch.randn(batch, 256), torch.randint(0, 10, (batch,))
    result, _ = _count(model, lambda m: F.cross_entropy(m(x), y))
    analytic = sum(_linear(batch, a, b, grad_input=i > 0) for i, (a, b) in enumerate(zip(sizes, sizes[1:])))
    flops = result["flops"]
    assert _close(flops["flops"], analytic), (flops["flops"], analytic)
    forward = sum(2 * batch * a * b for a, b in zip(sizes, sizes[1:]))
    assert _close(flops["by_phase"]["forward"], forward)
    assert flops["by_dtype"] == {"fp32": flops["flops"]}
    assert flops["uncounted"] == []


def _conv(batch: int, c_in: int, c_out: int, k: int, h: int, w: int, grad_input: bool) -> int:
    one = 2 * batch * c_out * h * w * c_in * k * k  # an output pixel: c_in*k*k multiply-adds
    return one * (3 if grad_input else 2)


def test_a_convnets_flops_match_the_analytic_count():
    batch = 8
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.ReLU(),
        nn.Flatten(), nn.Linear(32 * 16 * 16, 10))
    x, y = torch.randn(batch, 3, 32, 32), torch.randint(0, 10, (batch,))
    result, _ = _count(model, lambda m: F.cross_entropy(m(x), y))
    analytic = (_conv(batch, 3, 16, 3, 32, 32, grad_input=False) + _conv(batch, 16, 32, 3, 16, 16, grad_input=True)
                + _linear(batch, 32 * 16 * 16, 10, grad_input=True))
    assert _close(result["flops"]["flops"], analytic), (result["flops"]["flops"], analytic)


class Attention(nn.Module):
    """One self-attention block: q, k, v and output projections around scaled-dot-product attention."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.embed = nn.Linear(dim, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        x = self.embed(x)
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


def test_an_attention_blocks_flops_match_the_analytic_count():
    batch, tokens, dim, heads = 4, 64, 128, 4
    model = Attention(dim, heads)
    x = torch.randn(batch, tokens, dim)
    result, _ = _count(model, lambda m: m(x).pow(2).mean())
    rows = batch * tokens
    projections = (_linear(rows, dim, dim, grad_input=False) + _linear(rows, dim, 3 * dim, grad_input=True)
                   + _linear(rows, dim, dim, grad_input=True))
    scores = 2 * batch * tokens * tokens * dim  # QKᵀ over all heads (and AV: the same size)
    # Forward: QKᵀ and AV. Backward (a flash kernel): QKᵀ again, then dV, dP, dQ and dK.
    attention = 2 * scores + 5 * scores
    assert _close(result["flops"]["flops"], projections + attention), (result["flops"]["flops"], projections + attention)
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in {op["name"] for op in result["flops"]["ops"]} or \
        result["flops"]["flops"] > projections  # another attention kernel on another build: still counted


class Tagger(nn.Module):
    def __init__(self, vocab: int, dim: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embedding(tokens))
        return self.head(out)


def test_an_embedding_and_lstms_flops_match_the_analytic_count():
    batch, steps, vocab, dim, hidden, classes = 8, 20, 1000, 64, 128, 5
    model = Tagger(vocab, dim, hidden, classes)
    tokens, labels = torch.randint(0, vocab, (batch, steps)), torch.randint(0, classes, (batch, steps))
    result, _ = _count(model, lambda m: F.cross_entropy(m(tokens).reshape(-1, classes), labels.reshape(-1)))
    gates = 4 * hidden
    lstm_forward = 2 * steps * batch * gates * (dim + hidden)
    analytic = 3 * lstm_forward + _linear(batch * steps, hidden, classes, grad_input=True)  # backward: 2x forward
    assert _close(result["flops"]["flops"], analytic), (result["flops"]["flops"], analytic)
    assert result["flops"]["uncounted"] == []  # the CPU's LSTM kernel is counted, not listed


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
