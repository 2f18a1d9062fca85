"""How right is trainprobe's FLOP count? Four models against counts worked out from their shapes.

    python benchmarks/flop_accuracy.py

Each model runs one real training step (forward, backward, an Adam update) under the census
(trainprobe/probe/census.py), with the phases set as the probe's clock sets them; the count is
compared with the analytic count of its matrix products (2 FLOPs per multiply-add, forward and
backward, the convention of every MFU figure) written here from the shapes. Also printed: the
counter's own cost (the counted step against the same step uncounted, median of alternating runs).
tests/test_census.py holds the counts to 5% of the analytic ones.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))

from trainprobe.probe.census import Census  # noqa: E402

__all__ = ["Case", "CASES", "count", "linear_flops", "conv_flops"]


def linear_flops(batch: int, n_in: int, n_out: int, grad_input: bool) -> int:
    """Forward, weight gradient and (when the input needs one) input gradient of a Linear layer."""
    return 2 * batch * n_in * n_out * (3 if grad_input else 2)


def conv_flops(batch: int, c_in: int, c_out: int, k: int, h_out: int, w_out: int, grad_input: bool) -> int:
    """The same for a k×k convolution: c_in·k·k multiply-adds per output value."""
    return 2 * batch * c_out * h_out * w_out * c_in * k * k * (3 if grad_input else 2)


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], tuple[nn.Module, Callable[[nn.Module], torch.Tensor]]]  # model, and its loss of a batch
    analytic: int  # FLOPs of one training step's matrix products
    forward: int  # of which in the forward


def _mlp():
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))
    return model, lambda m: F.cross_entropy(m(x), y)


_MLP_SIZES = (256, 512, 512, 10)


def _convnet():
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.ReLU(),
        nn.Flatten(), nn.Linear(32 * 16 * 16, 10))
    x, y = torch.randn(8, 3, 32, 32), torch.randint(0, 10, (8,))
    return model, lambda m: F.cross_entropy(m(x), y)


class Attention(nn.Module):
    """One self-attention block: an embedding projection, q/k/v and output projections around SDPA."""

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


def _attention():
    model, x = Attention(128, 4), torch.randn(4, 64, 128)
    return model, lambda m: m(x).pow(2).mean()


class Tagger(nn.Module):
    def __init__(self, vocab: int = 1000, dim: int = 64, hidden: int = 128, classes: int = 5) -> None:
        super().__init__()
        self.classes = classes
        self.embedding = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embedding(tokens))
        return self.head(out)


def _tagger():
    model = Tagger()
    tokens, labels = torch.randint(0, 1000, (8, 20)), torch.randint(0, 5, (8, 20))
    return model, lambda m: F.cross_entropy(m(tokens).reshape(-1, 5), labels.reshape(-1))


_ROWS, _DIM = 4 * 64, 128
_SCORES = 2 * 4 * 64 * 64 * 128  # QKᵀ over all heads (AV is the same size)
_LSTM = 2 * 20 * 8 * (4 * 128) * (64 + 128)  # the four gate products over 20 steps of 8 sequences

CASES = (
    Case("MLP 256-512-512-10, batch 64",
         _mlp, sum(linear_flops(64, a, b, grad_input=i > 0) for i, (a, b) in enumerate(zip(_MLP_SIZES, _MLP_SIZES[1:]))),
         sum(2 * 64 * a * b for a, b in zip(_MLP_SIZES, _MLP_SIZES[1:]))),
    Case("convnet 3-16-32 on 32x32, batch 8", _convnet,
         conv_flops(8, 3, 16, 3, 32, 32, False) + conv_flops(8, 16, 32, 3, 16, 16, True)
         + linear_flops(8, 32 * 16 * 16, 10, True),
         2 * 8 * (16 * 32 * 32 * 27 + 32 * 16 * 16 * 144 + 32 * 16 * 16 * 10)),
    # Forward: QKᵀ and AV; backward (a flash kernel): QKᵀ again, then dV, dP, dQ and dK.
    Case("attention block d=128, 4 heads, 64 tokens, batch 4", _attention,
         linear_flops(_ROWS, _DIM, _DIM, False) + linear_flops(_ROWS, _DIM, 3 * _DIM, True)
         + linear_flops(_ROWS, _DIM, _DIM, True) + 7 * _SCORES,
         2 * _ROWS * _DIM * _DIM * 5 + 2 * _SCORES),
    Case("embedding + LSTM 64->128, 20 steps, batch 8", _tagger,
         3 * _LSTM + linear_flops(8 * 20, 128, 5, True), _LSTM + 2 * 8 * 20 * 128 * 5),
)


def count(case: Case, steps: int = 1) -> tuple[dict, nn.Module, torch.optim.Optimizer]:
    """The census's record parts for ``steps`` training steps of the case's model, after one step of warm-up."""
    model, loss_of = case.build()
    phase = ["data_wait"]
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_of(model).backward()
    opt.step()
    opt.zero_grad()
    census = Census(phase=lambda: phase[0], steps=steps)
    census.start(0, [model], [opt])
    done = False
    for _ in range(steps):
        phase[0] = "forward"
        loss = loss_of(model)
        phase[0] = "backward"
        loss.backward()
        phase[0] = "optimizer"
        census.before_optimizer_step(opt)
        opt.step()
        census.after_optimizer_step(opt)
        phase[0] = "other"
        opt.zero_grad()
        done = census.boundary(samples=8, duration=0.0)
    assert done
    census.stop()
    return census.result(), model, opt


def _step_time(case: Case, counted: bool) -> float:
    model, loss_of = case.build()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    census = Census(phase=lambda: "forward", steps=1) if counted else None
    if census is not None:
        census.start(0, [model], [opt])
    start = time.perf_counter()
    loss_of(model).backward()
    opt.step()
    opt.zero_grad()
    elapsed = time.perf_counter() - start
    if census is not None:
        census.boundary(samples=8, duration=elapsed)
        census.stop()
    return elapsed


def main() -> int:
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print("| model | counted | analytic | error | forward counted | analytic | counted step / plain step |")
    print("|---|---|---|---|---|---|---|")
    worst = 0.0
    for case in CASES:
        result = count(case)[0]["flops"]
        error = result["flops"] / case.analytic - 1
        worst = max(worst, abs(error))
        for _ in range(2):  # warm both paths
            _step_time(case, False), _step_time(case, True)
        ratios = [_step_time(case, True) / _step_time(case, False) for _ in range(7)]
        print(f"| {case.name} | {result['flops']:.4g} | {case.analytic:.4g} | {error:+.2%} | "
              f"{result['by_phase'].get('forward', 0):.4g} | {case.forward:.4g} | {statistics.median(ratios):.2f}x |")
    print(f"largest error: {worst:.2%} (the bar: 5%)")
    return 0 if worst <= 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
