"""The batch size as a lever: the part of a step that a larger batch would not grow.

A step's cost splits into work that grows with the samples in it (the ops' arithmetic, making each
sample) and a fixed cost paid once per step whatever the batch: calling each op (Python, the
dispatcher, autograd's engine), the loop's own Python, and taking the batch from a DataLoader worker
(the handoff: unpickling it, mapping its shared memory). With a few samples per step the fixed cost
can be most of the step; a larger batch pays it once for more samples. These facts combine families
(ops, steps, input), so they are derived after them (``facts/__init__.py``).
"""

from __future__ import annotations

import math
from typing import Optional

from ..record import RunRecord

__all__ = ["FAMILY", "FACTS", "compute", "derive", "suggest_batch_size"]

FAMILY = "batch"

FACTS = {
    "fixed_step_cost": ("s", "Seconds of the mean steady step that do not grow with the batch: the fixed cost "
                        "of calling ops (the larger of framework_overhead_share and dispatch_share), the "
                        "loop's own Python (loop_python_share) and receiving the batch from a worker "
                        "(batch_receive_share), each a share of step_time. None when neither the op "
                        "profile nor the handoff was measured."),
    "fixed_step_cost_share": ("share", "fixed_step_cost over the mean steady step."),
    "suggested_batch_size": ("count", "A batch at which the fixed per-step cost would be about a tenth of "
                             "the per-sample work: samples_per_step x 10 x fixed / (step - fixed), rounded "
                             "up to a power of two, at least twice the batch and at most 256 (or twice the "
                             "batch, if larger)."),
}

# The fixed cost should become this share of the per-sample work at the suggested batch.
_TARGET_FIXED_SHARE = 0.1
_MAX_SUGGESTED = 256


def compute(record: RunRecord) -> dict[str, object]:
    return {}  # every fact here combines other families: see derive()


def _number(values: dict[str, object], name: str) -> Optional[float]:
    value = values.get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def suggest_batch_size(samples: int, fixed: float, step: float) -> int:
    """The smallest power of two at which ``fixed`` seconds per step are at most a tenth of the rest of
    the step's cost for that many samples (the rest grows with the batch), between 2x and 256."""
    variable = max(step - fixed, 1e-9)
    wanted = samples * fixed / (_TARGET_FIXED_SHARE * variable)
    low, high = 2 * samples, max(_MAX_SUGGESTED, 2 * samples)
    size = 2 ** math.ceil(math.log2(max(wanted, 1.0)))
    return int(min(high, max(low, size)))


def derive(values: dict[str, object]) -> dict[str, object]:
    """The fixed per-step cost, its share and the batch that would spread it (facts by name)."""
    step = _number(values, "step_time")
    calls = [c for c in (_number(values, n) for n in ("framework_overhead_share", "dispatch_share"))
             if c is not None]
    receive = _number(values, "batch_receive_share")
    if step is None or step <= 0 or (not calls and receive is None):
        return {}  # neither the op profile nor the handoff was measured: nothing to judge from
    share = max(calls, default=0.0) + (_number(values, "loop_python_share") or 0.0) + (receive or 0.0)
    share = min(1.0, share)
    out: dict[str, object] = {"fixed_step_cost": share * step, "fixed_step_cost_share": share}
    samples = values.get("samples_per_step")
    if isinstance(samples, int) and samples > 0:
        out["suggested_batch_size"] = suggest_batch_size(samples, share * step, step)
    return out
