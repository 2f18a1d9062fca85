"""What compiling costs before it pays: the compile time a compiled trial's warm-up shows, and when it pays back.

torch.compile spends its time in the first steps (tracing, lowering, building kernels: tens of
seconds on a CPU), then runs the fused graph. A compiled trial's warm-up takes longer than its
baseline's by about that much; divided by what each steady step saves, it is the number of steps
after which compiling has paid for itself. Whether that is worth it depends on the run's length:
an epoch's steps are known from the DataLoader, and a run that ended by itself gives its total.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Optional, Sequence

from ..findings import Trial
from ..record import RunRecord

__all__ = ["RunLength", "run_length", "compile_cost", "compile_cost_text"]


@dataclass(frozen=True)
class RunLength:
    steps_per_epoch: Optional[int] = None
    total_steps: Optional[int] = None  # the steps the whole run makes, when the record saw it end by itself


def run_length(record: RunRecord) -> RunLength:
    per_epoch = None
    for loader in record.settings.dataloaders:
        if loader.used_in_training and loader.dataset_len and loader.batch_size:
            per_epoch = -(-loader.dataset_len // loader.batch_size) if not loader.drop_last else \
                loader.dataset_len // loader.batch_size
            break
    total = len(record.steps) if record.outcome.status == "completed" else None
    return RunLength(steps_per_epoch=per_epoch or None, total_steps=total)


def compile_cost(pairs: Sequence[tuple[Trial, Trial]]) -> tuple[Optional[float], Optional[float]]:
    """(compile seconds, break-even steps): the median extra warm-up of the compiled trials over their
    baselines, and that over the median seconds a steady step saves (None when a step saves nothing)."""
    extra = [f.warmup_time - b.warmup_time for b, f in pairs
             if b.ok and f.ok and f.warmup_time is not None and b.warmup_time is not None]
    saved = [b.step_time - f.step_time for b, f in pairs if b.ok and f.ok and b.step_time and f.step_time]  # type: ignore[operator]
    if not extra:
        return None, None
    seconds = max(0.0, statistics.median(extra))
    per_step = statistics.median(saved) if saved else 0.0
    return seconds, (seconds / per_step if per_step > 0 else None)


def compile_cost_text(pairs: Sequence[tuple[Trial, Trial]], length: RunLength) -> str:
    """"; compiling took about 38 s (...): it pays back after about 240 steps (1.2 epochs of 200)"."""
    seconds, steps = compile_cost(pairs)
    if seconds is None:
        return ""
    text = f"; compiling took about {seconds:.0f} s (the compiled runs' warm-up over the baseline's)"
    if steps is None:
        return text + ", and the compiled steps were not faster, so it never pays back"
    text += f": it pays back after about {steps:,.0f} steps"
    if length.steps_per_epoch:
        text += f" ({steps / length.steps_per_epoch:.2g} epochs of {length.steps_per_epoch:,})"
    if length.total_steps is not None and length.total_steps < steps:
        text += f"; not worth it for this run of {length.total_steps:,} steps"
    return text
