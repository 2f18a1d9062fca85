"""The batch size as a lever: the part of a step that a larger batch would not grow.

A step's cost splits into work that grows with the samples in it (the ops' arithmetic, making each
sample) and a fixed cost paid once per step whatever the batch: calling each op (Python, the
dispatcher, autograd's engine), the loop's own Python, and taking the batch from a DataLoader worker
(the handoff: unpickling it, mapping its shared memory). With a few samples per step the fixed cost
can be most of the step; a larger batch pays it once for more samples. These facts combine families
(ops, steps, input), so they are derived after them (``facts/__init__.py``).

A text batch padded to a fixed length carries slots the model computes on for nothing: the padding facts
say how many, from the batches' attention masks (probe/padding.py), and how many padding each batch to its
own longest sample would remove.
"""

from __future__ import annotations

import math
from typing import Optional

from ..record import RunRecord
from .code import where

__all__ = ["FAMILY", "FACTS", "compute", "derive", "suggest_batch_size"]

FAMILY = "batch"

FACTS = {
    "fixed_step_cost": ("s", "Seconds of the mean steady step that do not grow with the batch: the fixed cost "
                        "of calling ops (the larger of framework_overhead_share and dispatch_share, at "
                        "most 50 µs per op of ops_per_step: beyond that it is the model's own Python "
                        "working), the "
                        "loop's own Python (loop_python_share) and receiving the batch from a worker "
                        "(batch_receive_share), each a share of step_time. None when neither the op "
                        "profile nor the handoff was measured."),
    "fixed_step_cost_share": ("share", "fixed_step_cost over the mean steady step."),
    "op_call_share": ("share", "The part of fixed_step_cost_share that is calling ops: the larger of "
                      "framework_overhead_share and dispatch_share, at most 50 µs per op of ops_per_step."),
    "suggested_batch_size": ("count", "A batch at which the fixed per-step cost would be about a tenth of "
                             "the per-sample work: samples_per_step x 10 x fixed / (step - fixed), rounded "
                             "up to a power of two, at least twice the batch and at most 256 (or twice the "
                             "batch, if larger)."),
    "padding_share": ("share", "Share of the training batches' token slots (rows x padded length) that are "
                      "padding, from their attention masks (the first 64 batches); None for batches without one."),
    "padding_trim_share": ("share", "Share of those slots that padding each batch only to its own longest "
                           "sample would remove: 1 - sum(rows x batch's longest) / slots."),
    "padded_length": ("count", "The longest padded length of those batches (tokens per row)."),
    "padding_mask": ("text", "Where the mask was read: a batch's 'attention_mask' or 'input_mask', its 'labels' "
                     "(padded with -100, where no mask is: a seq2seq collator's targets), or a tuple "
                     "batch's position ('batch[1]')."),
    "padding_at": ("text", "The script's call that asks a tokenizer for padding (padding=\"max_length\" first, "
                   "else another padding= keyword): 'file.py:line'."),
}

# The most that calling one op can cost in Python, module calls, the dispatcher and autograd's engine. The
# model's phases' time outside their ops counts as the fixed cost of calling them up to this much per op:
# beyond it, it is the model's own Python doing work, which may grow with the batch (detectron2's Faster
# R-CNN, test set 22: 208 µs per op outside its ops, its per-image loops over proposals and boxes; a
# tiny-batch warning called a fifth of its 7.5 s step of 2 images a fixed cost). On the other recorded runs
# the phases' time outside their ops came to 3-45 µs per op (DALL-E's VAE, 109 µs, aside); the runs whose
# tiny batches an expert confirmed, 3-19 µs.
_MAX_CALL_COST = 50e-6
# The fixed cost should become this share of the per-sample work at the suggested batch.
_TARGET_FIXED_SHARE = 0.1
_MAX_SUGGESTED = 256


def compute(record: RunRecord) -> dict[str, object]:
    """The padding facts; every other fact here combines other families: see derive()."""
    padding = record.settings.padding
    if padding is None or padding.slots <= 0:
        return {}
    return {
        "padding_share": 1.0 - padding.tokens / padding.slots,
        "padding_trim_share": 1.0 - padding.longest / padding.slots,
        "padded_length": padding.length,
        "padding_mask": padding.mask or None,
        "padding_at": where(padding.set_at, record.invocation.cwd),
    }


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
    calling = max(calls, default=0.0)
    # The model's ops where the record keeps them by phase: a batch the loop makes with tensor writes is not
    # the model's calling cost (facts/ops.py).
    ops = _number(values, "model_ops_per_step")
    if ops is None:
        ops = _number(values, "ops_per_step")
    if ops is not None:
        calling = min(calling, ops * _MAX_CALL_COST / step)
    share = calling + (_number(values, "loop_python_share") or 0.0) + (receive or 0.0)
    share = min(1.0, share)
    out: dict[str, object] = {"fixed_step_cost": share * step, "fixed_step_cost_share": share}
    if calls:
        out["op_call_share"] = calling
    samples = values.get("samples_per_step")
    if isinstance(samples, int) and samples > 0:
        out["suggested_batch_size"] = suggest_batch_size(samples, share * step, step)
    return out
