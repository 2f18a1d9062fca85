"""How a step travels from the child to the parent: a tuple of values, one JSON line.

The clock closes a step many times a second, so its event is a plain tuple in
``STEP_FIELDS`` order (fields of ``record.Step``), and its line is written with
one ``%`` format: a JSON encoder spends most of its time on the shortest
round-trip ``repr`` of each float (5.4 µs a step here against 1.8 µs), and
nanosecond digits are all a step's times need. Booleans go out as 0/1, and
:func:`step_fields` turns them back.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["STEP_FIELDS", "encode_step", "step_fields"]

STEP_FIELDS = (
    "index", "start", "duration", "data_wait", "h2d", "forward", "backward", "optimizer", "zero_grad", "eval",
    "other", "probe", "phase", "boundary", "batches", "samples", "epoch_start", "validation", "debug",
    "updates", "lr", "data_wait_cpu", "data_receive",
)
_SAMPLES = STEP_FIELDS.index("samples")
_LR = STEP_FIELDS.index("lr")
_BOOLEANS = ("epoch_start", "validation")
# index, eleven times in seconds, two names (plain identifiers: no quoting needed), batches,
# samples (a number or null, already text), two booleans, debug seconds, optimizer steps, the
# learning rate (full precision, or null), the data wait's CPU and receive seconds.
_LINE = '{"type": "step", "v": [%d,' + "%.9f," * 11 + '"%s","%s",%d,%s,%d,%d,%.9f,%d,%s,%.9f,%.9f]}\n'


def encode_step(values: tuple) -> str:
    """A step's JSON line (``STEP_FIELDS`` values, as the clock emits them)."""
    samples, lr = values[_SAMPLES], values[_LR]
    values = (values[:_SAMPLES] + ("null" if samples is None else samples,) + values[_SAMPLES + 1:_LR]
              + ("null" if lr is None or not math.isfinite(lr) else repr(float(lr)),) + values[_LR + 1:])
    return _LINE % values


def step_fields(event: dict) -> dict[str, Any]:
    """A step event's values by field name."""
    fields = dict(zip(STEP_FIELDS, event["v"]))
    for name in _BOOLEANS:
        if name in fields:
            fields[name] = bool(fields[name])
    return fields
