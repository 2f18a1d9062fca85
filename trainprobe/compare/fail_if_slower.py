"""The CI gate: ``--fail-if-slower PCT`` fails a candidate slower than the baseline by more than PCT,
with confidence.

A candidate fails when its whole 95% interval lies beyond PCT: the baseline
over candidate ratio's upper bound is below ``1 / (1 + PCT/100)`` (its time per
step at least PCT% longer, at the interval's most favourable end). A slowdown
whose interval still reaches PCT is not conclusive and passes, said as
inconclusive: a gate that failed on noise would be switched off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..exits import FAILED_CHECK

if TYPE_CHECKING:  # the CLI reads EXIT_SLOWER at start-up without loading the comparison
    from .compare import Comparison

__all__ = ["EXIT_SLOWER", "GateResult", "gate"]

EXIT_SLOWER = FAILED_CHECK  # the exit status of `trainprobe compare --fail-if-slower` when a candidate fails


@dataclass(frozen=True)
class GateResult:
    threshold_percent: float
    failed: bool
    failing: tuple[str, ...]  # labels of the candidates slower by more than the threshold, with confidence
    message: str  # one sentence per candidate


def _percent(ratio: float) -> float:
    """How much longer the candidate's time per step is, in percent, for a baseline/candidate ratio."""
    return (1.0 / ratio - 1.0) * 100.0


def _verdict(label: str, speedup: float, low: float, high: float, pct: float) -> tuple[bool, str]:
    limit = 1.0 / (1.0 + pct / 100.0)
    slower = _percent(speedup)
    span = f"95% interval {_percent(high):+.1f}% to {_percent(low):+.1f}% in time per step"
    if high < limit:
        return True, f"{label} is slower than the baseline by more than {pct:g}% ({slower:+.1f}%, {span})"
    if low < limit:
        return False, (f"{label}: inconclusive at {pct:g}% ({slower:+.1f}%, {span}: the interval reaches "
                       f"{pct:g}%)")
    return False, f"{label} is within {pct:g}% of the baseline or faster ({slower:+.1f}%, {span})"


def gate(comparison: Comparison, percent: float) -> GateResult:
    """Whether any candidate is slower than the baseline by more than ``percent`` with confidence."""
    failing, lines = [], []
    for c in comparison.candidates:
        failed, line = _verdict(c.label, c.speedup, c.low, c.high, percent)
        lines.append(line)
        if failed:
            failing.append(c.label)
    head = "gate failed" if failing else "gate passed"
    return GateResult(threshold_percent=percent, failed=bool(failing), failing=tuple(failing),
                      message=f"{head} (--fail-if-slower {percent:g}): " + "; ".join(lines))
