"""Step-time facts: how long a steady step takes and where its time goes.

They describe the steady (measured) steps within an epoch: steps that began an
epoch wait for worker start-up and are described by the epoch_start_* facts,
so that one slow epoch start does not read as a data-bound run.
"""

from __future__ import annotations

from ..record import RunRecord, Step
from ._stats import mean, median, percentile, ratio

__all__ = ["FAMILY", "FACTS", "compute", "within_epoch_steps"]

FAMILY = "steps"

FACTS = {
    "steady_steps": ("count", "Steps in the measured (steady) window, validation and epoch-start "
                     "steps excluded (epoch starts are kept if they are half the window)."),
    "step_time_median": ("s", "Median duration of a steady training step."),
    "step_time_p90": ("s", "90th percentile of the steady step duration."),
    "step_time_cv": ("ratio", "Coefficient of variation of steady step times (std/mean); "
                     "above ~0.3 the machine is noisy or the steps differ."),
    "steps_per_second": ("1/s", "Steady training steps per second (1 / median step)."),
    "samples_per_step": ("count", "Median batch size seen per step (first dimension of the batch)."),
    "samples_per_second": ("1/s", "Training samples per second in the steady window."),
    "data_wait_share": ("share", "Share of the step the loop waited for the next batch."),
    "data_wait_stall_share": ("share", "Share of the data wait spent in stalls: steps that waited longer "
                              "than a median step's work, so the batch queue was empty."),
    "data_wait_stall_p90": ("s", "90th percentile of the stalled steps' waits: how long the queue stayed dry."),
    "data_wait_stalls": ("count", "Steady steps that stalled (waited longer than a median step's work)."),
    "h2d_share": ("share", "Share of the step spent copying the batch to the device."),
    "forward_share": ("share", "Share of the step in the model's forward (CPU-side wall time)."),
    "backward_share": ("share", "Share of the step in backward (CPU-side wall time)."),
    "optimizer_share": ("share", "Share of the step in optimizer.step()."),
    "eval_share": ("share", "Share of the step in eval-mode/no-grad forwards inside training steps."),
    "other_share": ("share", "Share of the step outside every measured phase: the loop's own "
                    "Python code, logging, .item() waits, zero_grad."),
    "debug_share": ("share", "Share of the step in debugging aids timed apart (anomaly mode's stack "
                    "capture, taken out of forward)."),
    "compute_share": ("share", "forward + backward + optimizer shares together."),
    "data_wait_per_step": ("s", "Seconds per steady step waiting for data."),
    "h2d_per_step": ("s", "Seconds per steady step copying the batch to the device."),
    "other_per_step": ("s", "Seconds per steady step outside every measured phase."),
    "zero_grad_per_step": ("s", "Seconds per steady step in zero_grad() (part of other)."),
    "forward_per_step": ("s", "Seconds per steady step in forward (CPU-side wall time)."),
    "backward_per_step": ("s", "Seconds per steady step in backward (CPU-side wall time)."),
    "optimizer_per_step": ("s", "Seconds per steady step in optimizer.step()."),
    "compute_per_step": ("s", "Seconds per steady step in forward + backward + optimizer."),
    "debug_per_step": ("s", "Seconds per steady step in debugging aids (anomaly mode's stack capture)."),
    "gpu_busy_share": ("share", "Device-busy seconds (CUDA events) over step time; None without CUDA."),
    "epoch_start_wait": ("s", "Median data wait of the steps that began an epoch (after the first)."),
    "epoch_start_extra": ("s", "How much longer an epoch's first batch waits than a normal batch."),
    "epochs_seen": ("count", "Epoch-start steps seen (DataLoader iterators created while training)."),
    "validation_steps": ("count", "Steps that were mostly validation (eval forwards)."),
    "validation_time_share": ("share", "Validation steps' time over all measured step time."),
}

_PHASES = ("data_wait", "h2d", "forward", "backward", "optimizer", "eval", "debug", "other")


def _shares(steps: tuple[Step, ...]) -> dict[str, object]:
    total = sum(s.duration for s in steps)
    out: dict[str, object] = {}
    for phase in _PHASES:
        out[f"{phase}_share"] = ratio(sum(getattr(s, phase) for s in steps), total)
    parts = [out[f"{p}_share"] for p in ("forward", "backward", "optimizer")]
    out["compute_share"] = None if None in parts else sum(parts)  # type: ignore[arg-type]
    n = len(steps)
    for phase in ("data_wait", "h2d", "other", "zero_grad", "forward", "backward", "optimizer", "debug"):
        out[f"{phase}_per_step"] = sum(getattr(s, phase) for s in steps) / n if n else None
    out["compute_per_step"] = (
        sum(s.forward + s.backward + s.optimizer for s in steps) / n if n else None
    )
    busy = [s.gpu_busy for s in steps if s.gpu_busy is not None]
    out["gpu_busy_share"] = ratio(sum(busy), total) if len(busy) == n and n else None
    return out


def _stall_facts(steps: tuple[Step, ...]) -> dict[str, object]:
    """How much of the wait comes in stalls. A queue that is merely a little slow makes every step
    wait a little; a queue too shallow for batches of varying cost makes a few steps wait long."""
    work = median(s.duration - s.data_wait for s in steps)
    total_wait = sum(s.data_wait for s in steps)
    if work is None or total_wait <= 0:
        return {"data_wait_stalls": 0 if steps else None}
    stalls = [s.data_wait for s in steps if s.data_wait > work]
    return {
        "data_wait_stall_share": sum(stalls) / total_wait,
        "data_wait_stall_p90": percentile(stalls, 90) if stalls else None,
        "data_wait_stalls": len(stalls),
    }


def _epoch_facts(record: RunRecord) -> dict[str, object]:
    training = [s for s in record.steps if not s.validation]
    starts = [s for s in training if s.epoch_start]
    later = starts[1:] if len(starts) > 1 else []
    normal = [s.data_wait for s in training if not s.epoch_start and s.phase != "warmup"]
    wait = median(s.data_wait for s in later) if later else None
    base = median(normal)
    extra = None
    if wait is not None:
        extra = max(0.0, wait - (base or 0.0))
    return {"epoch_start_wait": wait, "epoch_start_extra": extra, "epochs_seen": len(starts)}


def within_epoch_steps(record: RunRecord) -> tuple[Step, ...]:
    """The steady steps, without those that began an epoch (worker start-up, shuffling:
    the epoch_start_* facts cover them), unless that would leave fewer than half."""
    steps = record.steady_steps()
    inside = tuple(s for s in steps if not s.epoch_start)
    return inside if len(inside) * 2 >= len(steps) else steps


def compute(record: RunRecord) -> dict[str, object]:
    steps = within_epoch_steps(record)
    durations = [s.duration for s in steps]
    med = median(durations)
    avg = mean(durations)
    out: dict[str, object] = {
        "steady_steps": len(steps),
        "step_time_median": med,
        "step_time_p90": percentile(durations, 90),
        "steps_per_second": ratio(1.0, med),
    }
    if avg and len(durations) > 1:
        var = sum((d - avg) ** 2 for d in durations) / (len(durations) - 1)
        out["step_time_cv"] = var ** 0.5 / avg
    samples = median(s.samples for s in steps)
    out["samples_per_step"] = int(samples) if samples is not None else None
    total = sum(durations)
    counted = [s.samples for s in steps if s.samples]
    out["samples_per_second"] = ratio(sum(counted), total) if len(counted) == len(steps) else None
    out.update(_shares(steps))
    out.update(_stall_facts(steps))
    out.update(_epoch_facts(record))
    validation = [s for s in record.steps if s.validation]
    out["validation_steps"] = len(validation)
    all_time = sum(s.duration for s in record.steps)
    out["validation_time_share"] = ratio(sum(s.duration for s in validation), all_time)
    return out
