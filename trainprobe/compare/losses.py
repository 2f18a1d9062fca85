"""Loss beside speed: where the runs recorded a loss, whether the faster one still learns the same.

A plain ``trainprobe diagnose`` record holds no loss (the probe times steps
and never reads the script's values). The what-if does record one: every
trial of ``--verify`` (``trainprobe/whatif/inject.py``) keeps the loss of each
backward in its measured window, and ``diagnosis.json`` beside the run.json
keeps the trials. A compared run's loss is its what-if's first baseline trial
(the script unchanged); a run without one has no loss, and the comparison
says so rather than guess.

Two runs "learn differently" when the mean loss over the second half of their
windows differs by more than ``LOSS_TOLERANCE`` of the baseline's. The
windows are short (seconds of training), so this flags a fix that changed the
numbers (a learning rate, a precision, a bug), not a difference in
convergence; the losses are shown for the reader to judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..jsonio import JsonMixin
from ..findings import WhatIf

__all__ = ["LOSS_TOLERANCE", "LossSummary", "loss_summary", "learns_differently", "NO_LOSS_REASON"]

LOSS_TOLERANCE = 0.10  # relative difference of the late-window mean loss

NO_LOSS_REASON = ("a plain diagnose record holds no loss; `trainprobe diagnose --verify` (or `trainprobe verify "
                  "run.json`) records the loss of its baseline runs beside the record")


@dataclass(frozen=True)
class LossSummary(JsonMixin):
    source: str = ""  # where the losses come from
    n: int = 0  # losses recorded (one per backward in the measured window)
    first: float = 0.0
    last: float = 0.0
    late_mean: float = 0.0  # mean of the second half of the window


def loss_summary(whatif: Optional[WhatIf]) -> Optional[LossSummary]:
    """The loss of a run's what-if baseline trial, or None when no loss was recorded."""
    if whatif is None:
        return None
    trial = next((t for t in whatif.trials if t.label == "baseline" and t.losses), None)
    if trial is None:
        return None
    losses = trial.losses
    late = losses[len(losses) // 2:]
    return LossSummary(source=f"the what-if's baseline trial {trial.index} (diagnosis.json)", n=len(losses),
                       first=losses[0], last=losses[-1], late_mean=sum(late) / len(late))


def learns_differently(base: Optional[LossSummary], candidate: Optional[LossSummary]) -> Optional[bool]:
    """Whether the candidate's late loss is off the baseline's by more than LOSS_TOLERANCE; None when
    either run has no loss."""
    if base is None or candidate is None:
        return None
    scale = abs(base.late_mean) or 1.0
    return abs(candidate.late_mean - base.late_mean) > LOSS_TOLERANCE * scale
