"""The words every part of trainprobe shares: a step's phases, the verdict's categories, the window.

A step's phases were once listed in each module that needed them (the clock,
the step codec, the facts, the report, the verdict's split, the job's tables),
and the lists drifted apart: one table put the copy to the device under
``input`` while the verdict put it under ``copy``. Each of them now reads this
module, and ``tests/test_vocabulary.py`` fails when a phase of ``record.Step``
is missing from it or from any of them.

This is the bottom layer: it imports nothing from trainprobe.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Phase", "PHASES", "PHASE", "PHASE_NAMES", "INNER_PHASES", "INNER_PHASE_NAMES", "TIMED_PHASE_NAMES",
    "CATEGORIES", "cause_of",
    "DEFAULT_MAX_SECONDS", "DEFAULT_WARMUP_STEPS", "DEFAULT_WINDOW_SECONDS",
]


@dataclass(frozen=True)
class Phase:
    """One part of a training step, as ``record.Step`` holds it (seconds per step)."""

    name: str  # the field of record.Step
    label: str  # plain words for tables and legends
    colour: str  # the report's colour for it
    cause: str  # the verdict category its time counts toward (one of CATEGORIES)
    doing: str  # for sentences: "rank 1 spends 40 ms per step {doing}"


# The verdict's classes. They come from the step-time split, so they add up
# to the step (as torch-tb-profiler's ordered categories did).
CATEGORIES = ("input", "host", "launch", "sync", "copy", "compute", "memory", "communication")

# In step order. They add up to the step's duration: ``other`` is what no hook timed (the loop's
# own code). The causes are the verdict's split (engine/verdict.breakdown): debugging aids timed
# apart (anomaly mode's stack capture, taken out of forward) are host work that switching them off
# removes; validation forwards inside a training step are the model's math.
PHASES: tuple[Phase, ...] = (
    Phase("data_wait", "data wait", "#d55e00", "input", "waiting for data"),
    Phase("h2d", "copy to device", "#e69f00", "copy", "copying batches to the device"),
    Phase("forward", "forward", "#0b5cad", "compute", "in the forward pass"),
    Phase("backward", "backward", "#56b4e9", "compute", "in the backward pass"),
    Phase("optimizer", "optimizer", "#009e73", "compute", "in the optimizer step"),
    Phase("eval", "evaluation", "#cc79a7", "compute", "in evaluation"),
    Phase("debug", "debugging aids (anomaly mode)", "#7f3c8d", "host",
          "in debugging aids (anomaly mode's stack capture)"),
    Phase("other", "loop's own code", "#9aa5b1", "host",
          "in the loop's own code (logging, checkpoints, metrics)"),
)

# Timed inside a phase above and counted in it, never beside it: zero_grad() is part of ``other``
# (a step's phases would add up to more than the step if it were listed there).
INNER_PHASES: tuple[Phase, ...] = (
    Phase("zero_grad", "zero_grad", "#9aa5b1", "host", "in zero_grad()"),
)

PHASE: dict[str, Phase] = {p.name: p for p in PHASES + INNER_PHASES}
PHASE_NAMES: tuple[str, ...] = tuple(p.name for p in PHASES)
INNER_PHASE_NAMES: tuple[str, ...] = tuple(p.name for p in INNER_PHASES)
# The step's phases that hooks time: all but ``other``, which is the rest of the step (its duration
# less these), computed by the probe's clock and by the trace's reader alike.
TIMED_PHASE_NAMES: tuple[str, ...] = tuple(name for name in PHASE_NAMES if name != "other")


def cause_of(phase: str) -> str:
    """The verdict category a phase's time counts toward; ``host`` for a name no table knows."""
    known = PHASE.get(phase)
    return known.cause if known is not None else "host"


# The measurement window's defaults, read by the probe's WindowPlan, the CLI's options and the
# notebook's: stop after this long, skip this many warm-up steps, then measure this long.
DEFAULT_MAX_SECONDS = 90.0
DEFAULT_WARMUP_STEPS = 5
DEFAULT_WINDOW_SECONDS = 6.0
