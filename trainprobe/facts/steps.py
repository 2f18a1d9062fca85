"""Step-time facts: how long a steady step takes and where its time goes.

The steps are those of :func:`~trainprobe.facts.window.steady_steps`, and
every share and per-step figure is over their mean (``step_time``): the one
base of every share, gain and rate. Steps that began an epoch are described
by the ``epoch_start_*`` facts, so that one slow epoch start does not read as
a data-bound run.
"""

from __future__ import annotations

from operator import attrgetter

from ..record import RunRecord, Step
from ..vocabulary import PHASE_NAMES
from ._stats import mean, median, percentile, ratio
from .window import (after_warmup, borrowed_warmup, mean_step_time, partial_batches, steady_micro_batches, steady_steps,
                     warmup_steps)

__all__ = ["FAMILY", "FACTS", "PHASES", "compute", "backward_without_recompute"]

FAMILY = "steps"

# The step's phases, in step order; ``other`` is what no hook timed. Each gets a share and a
# per-step fact (and a warm-up one): the vocabulary's phases, so a new phase gets its facts.
PHASES = PHASE_NAMES

FACTS = {
    "steady_steps": ("count", "Steps in the measured (steady) window: validation, epoch-start and "
                     "partial-batch steps left out (epoch starts are kept if they are half the window)."),
    "steady_from_warmup": ("count", "Warm-up steps counted among the steady ones because the run was too short "
                           "for a separate warm-up (all but the first; none in a run long enough)."),
    "steady_micro_batches": ("count", "Micro-batches of the steady steps, counted when fewer than 5 steps were "
                             "measured and some were split into the micro-batches they accumulate gradients over "
                             "(a step not split counts as one; a run of a few long updates is judged from them: "
                             "facts/window.py); 0 otherwise."),
    "step_time": ("s", "Mean duration of a steady training step: the base of every share, gain and "
                  "rate trainprobe reports."),
    "step_time_median": ("s", "Median duration of a steady training step (the typical step)."),
    "step_time_p90": ("s", "90th percentile of the steady step duration."),
    "rare_heavy_steps": ("count", "Steady steps that took more than 5x the median step, when they are rare (at "
                         "most a fifth of the steps): work the loop does every so many steps (logging, "
                         "checkpoints, an RL rollout between updates)."),
    "rare_heavy_every": ("count", "Steady steps per rare heavy step (about how often one comes)."),
    "rare_heavy_step_time": ("s", "Median duration of the rare heavy steps."),
    "rare_heavy_share": ("share", "The rare heavy steps' time beyond a median step, over all steady time: what "
                         "they add to the mean step."),
    "rare_heavy_other_share": ("share", "Of that extra time, the share in the steps' other part (the loop's own "
                               "code, outside data loading, the model's passes and the optimizer)."),
    "step_time_cv": ("ratio", "Coefficient of variation of steady step times (std/mean); "
                     "above ~0.3 the machine is noisy or the steps differ."),
    "steps_per_second": ("1/s", "Steady training steps per second (1 / step_time)."),
    "samples_per_step": ("count", "Median batch size seen per step (first dimension of the batch)."),
    "samples_per_second": ("1/s", "Training samples per second in the steady window."),
    "partial_batch_steps": ("count", "Steps left out of the window because their batch was smaller "
                            "than the usual one (an epoch's last batch)."),
    "step_unit": ("text", "How iterations were told apart: fetch (a DataLoader batch each), optimizer "
                  "(batches made by hand), backward (no optimizer either), batch (no backward) or loader (nothing "
                  "but DataLoader batches: each batch of the loader that began an iteration begins the next)."),
    "batches_per_step": ("count", "Median DataLoader batches per steady step."),
    "updates_per_step": ("count", "Median optimizer steps per steady step (2 for a GAN's two optimizers)."),
    "grad_accumulation": ("x", "Micro-batches per optimizer update (batches in a step that updates; the "
                          "warm-up's where no steady step was measured); 1 without gradient accumulation."),
    "backward_without_recompute": ("s", "What backward would take without recomputing activations: the input "
                                   "gradients, about one forward, plus the weight gradients, about one more "
                                   "forward for the share of the parameters that train (model_trainable_share; all "
                                   "of them when unknown). A LoRA fine-tune's is about one forward."),
    "lr_first": ("x", "Learning rate of the first optimizer step recorded."),
    "lr_last": ("x", "Learning rate of the last optimizer step recorded."),
    "lr_varied": ("bool", "The learning rate the optimizer used changed during the run (a scheduler or a "
                  "hand-written schedule)."),
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
    "forward_per_step": ("s", "Seconds per steady step in forward (CPU-side wall time)."),
    "backward_per_step": ("s", "Seconds per steady step in backward (CPU-side wall time)."),
    "optimizer_per_step": ("s", "Seconds per steady step in optimizer.step()."),
    "eval_per_step": ("s", "Seconds per steady step in eval-mode/no-grad forwards."),
    "debug_per_step": ("s", "Seconds per steady step in debugging aids (anomaly mode's stack capture)."),
    "other_per_step": ("s", "Seconds per steady step outside every measured phase."),
    "zero_grad_per_step": ("s", "Seconds per steady step in zero_grad() (part of other)."),
    "compute_per_step": ("s", "Seconds per steady step in forward + backward + optimizer."),
    "probe_share": ("share", "Time trainprobe's own hooks took, over the steady steps' time (already "
                    "left out of every phase)."),
    "gpu_busy_share": ("share", "Device-busy seconds (CUDA events) over step time; None without CUDA."),
    "warmup_steps": ("count", "Warm-up steps (compilation, autotuning, first allocations)."),
    "warmup_step_time": ("s", "Mean duration of a warm-up step."),
    "time_to_first_step": ("s", "Seconds from the script's launch to the end of its first step: start-up and the "
                           "first step's one-off costs."),
    "profiling_steps_planned": ("count", "Steps the run's plan gives its profiled windows at the least (torch.profiler "
                                "and cProfile; 0 when both are off); None when the record holds no plan."),
    **{f"warmup_{p}_per_step": ("s", f"Seconds per warm-up step in {p.replace('_', ' ')}.") for p in PHASES},
    "epoch_start_wait": ("s", "Median data wait of the steps that began an epoch (after the first)."),
    "epoch_start_extra": ("s", "How much longer an epoch's first batch waits than a normal batch."),
    "epoch_start_step_time": ("s", "Median duration of the steps that began an epoch, after warm-up."),
    "epochs_seen": ("count", "Epoch-start steps seen (DataLoader iterators created while training)."),
    "validation_steps": ("count", "Steps that were mostly validation (eval forwards)."),
    "validation_time_share": ("share", "Validation steps' time over all measured step time."),
}


def _per_step(steps: tuple[Step, ...], phase: str):
    return sum(map(attrgetter(phase), steps)) / len(steps) if steps else None


def _shares(steps: tuple[Step, ...]) -> dict[str, object]:
    # map(attrgetter) sums in the same order as a generator, without a Python frame per step: the
    # verdict's bootstrap makes these sums for each of its resamples.
    total = sum(map(attrgetter("duration"), steps))
    out: dict[str, object] = {}
    for phase in PHASES:
        spent = sum(map(attrgetter(phase), steps))  # the sum _per_step makes, made once
        out[f"{phase}_share"] = ratio(spent, total)
        out[f"{phase}_per_step"] = spent / len(steps) if steps else None
    parts = [out[f"{p}_share"] for p in ("forward", "backward", "optimizer")]
    out["compute_share"] = None if None in parts else sum(parts)  # type: ignore[arg-type]
    out["zero_grad_per_step"] = _per_step(steps, "zero_grad")
    out["compute_per_step"] = (sum(s.forward + s.backward + s.optimizer for s in steps) / len(steps)
                               if steps else None)
    out["probe_share"] = ratio(sum(map(attrgetter("probe"), steps)), total)
    busy = [s.gpu_busy for s in steps if s.gpu_busy is not None]
    out["gpu_busy_share"] = ratio(sum(busy), total) if len(busy) == len(steps) and steps else None
    return out


def _warmup(record: RunRecord) -> dict[str, object]:
    steps = warmup_steps(record)
    out: dict[str, object] = {"warmup_steps": len(steps), "warmup_step_time": mean_step_time(steps)}
    first = record.steps[0] if record.steps else None
    out["time_to_first_step"] = first.start + first.duration if first is not None else None
    out["profiling_steps_planned"] = _profiling_steps_planned(record)
    for phase in PHASES:
        out[f"warmup_{phase}_per_step"] = _per_step(steps, phase)
    return out


def _profiling_steps_planned(record: RunRecord):
    """The profiled windows' fewest steps, from the plan the run was made with (probe/config.py's WindowPlan, as
    the record's invocation keeps it)."""
    plan = (record.invocation.options or {}).get("plan") if record.invocation else None
    if not isinstance(plan, dict):
        return None

    def steps(name: str) -> int:  # a hand-edited record's "three" or -1 counts as none
        value = plan.get(name)
        return value if type(value) is int and value > 0 else 0
    return (steps("profile_min_steps") if plan.get("profiler") else 0) + \
        (steps("cprofile_min_steps") if plan.get("cprofile") else 0)


def _stall_facts(steps: tuple[Step, ...]) -> dict[str, object]:
    """How much of the wait comes in stalls. A queue that is merely a little slow makes every step
    wait a little; a queue too shallow for batches of varying cost makes a few steps wait long.
    The loop's time receiving a batch from a worker (``data_receive``, where measured) is the
    handoff of a batch that was ready, not the queue running dry: it does not make a stall."""
    work = median(s.duration - s.data_wait for s in steps)
    total_wait = sum(s.data_wait for s in steps)
    if work is None or total_wait <= 0:
        return {"data_wait_stalls": 0 if steps else None}
    stalls = [s.data_wait for s in steps if s.data_wait - (s.data_receive or 0.0) > work]
    return {
        "data_wait_stall_share": sum(stalls) / total_wait,
        "data_wait_stall_p90": percentile(stalls, 90) if stalls else None,
        "data_wait_stalls": len(stalls),
    }


_HEAVY = 5.0  # a step this many times the median is a heavy one...
_RARE = 0.2  # ...and heavy steps are rare when at most this share of the steps


def _rare_heavy_facts(steps: tuple[Step, ...]) -> dict[str, object]:
    """Rare steps far slower than the rest: their extra time is in the mean step (every share's base), but
    a short profile window of ordinary steps does not see what they do (test set 7: a GAN's TensorBoard
    histograms every 100 steps, 61% of the steady time in one step of 93; PPO's rollouts between
    updates, 76% in 3 steps of 234)."""
    typical = median(s.duration for s in steps)
    heavy = [s for s in steps if typical and s.duration > _HEAVY * typical]
    if not heavy or len(heavy) > _RARE * len(steps):
        return {"rare_heavy_steps": 0 if steps else None}
    extra = sum(s.duration - typical for s in heavy)
    median_other = median(s.other for s in steps) or 0.0
    return {
        "rare_heavy_steps": len(heavy),
        "rare_heavy_every": len(steps) / len(heavy),
        "rare_heavy_step_time": median(s.duration for s in heavy),
        "rare_heavy_share": extra / sum(s.duration for s in steps),
        "rare_heavy_other_share": min(1.0, sum(max(0.0, s.other - median_other) for s in heavy) / extra),
    }


def _epoch_facts(record: RunRecord) -> dict[str, object]:
    training = [s for s in record.steps if not s.validation]
    starts = [s for s in training if s.epoch_start]
    later = starts[1:] if len(starts) > 1 else []
    normal = [s.data_wait for s in after_warmup(training) if not s.epoch_start]
    wait = median(s.data_wait for s in later) if later else None
    base = median(normal)
    extra = None
    if wait is not None:
        extra = max(0.0, wait - (base or 0.0))
    later_starts = [s.duration for s in after_warmup(starts)]
    return {"epoch_start_wait": wait, "epoch_start_extra": extra, "epochs_seen": len(starts),
            "epoch_start_step_time": median(later_starts) if later_starts else None}


def _iteration_facts(record: RunRecord, steps: tuple[Step, ...]) -> dict[str, object]:
    """What one iteration holds, and the learning rate each one used."""
    units = [s.boundary for s in after_warmup(record.steps)] or [s.boundary for s in record.steps]
    unit = max(set(units), key=units.count) if units else None
    updating = [s for s in steps if s.updates > 0]
    if not steps:  # a run stopped before any steady step (StarCoder's 3-minute steps): its warm-up's
        updating = [s for s in record.steps if s.updates > 0 and not s.validation]
    lrs = [s.lr for s in record.steps if s.lr is not None]
    return {
        "step_unit": unit,
        "batches_per_step": median(s.batches for s in steps),
        "updates_per_step": median(s.updates for s in steps),
        "grad_accumulation": median(s.batches for s in updating) if unit == "fetch" and updating else None,
        "lr_first": lrs[0] if lrs else None,
        "lr_last": lrs[-1] if lrs else None,
        "lr_varied": (min(lrs) != max(lrs)) if len(lrs) > 1 else None,
    }


def backward_without_recompute(values: dict[str, object]) -> dict[str, object]:
    """backward_without_recompute from the facts by name (it combines this family's and settings')."""
    forward, trainable = values.get("forward_per_step"), values.get("model_trainable_share")
    if not isinstance(forward, (int, float)):
        return {}
    share = float(trainable) if isinstance(trainable, (int, float)) and 0 <= trainable <= 1 else 1.0
    return {"backward_without_recompute": forward * (1.0 + share)}


def compute(record: RunRecord) -> dict[str, object]:
    steps = steady_steps(record)
    durations = [s.duration for s in steps]
    base = mean_step_time(steps)
    out: dict[str, object] = {
        "steady_steps": len(steps),
        "steady_from_warmup": len(set(map(id, borrowed_warmup(record))) & set(map(id, steps))),
        "steady_micro_batches": len(steady_micro_batches(record)),
        "step_time": base,
        "step_time_median": median(durations),
        "step_time_p90": percentile(durations, 90),
        "steps_per_second": ratio(1.0, base),
        "partial_batch_steps": len(partial_batches(
            tuple(s for s in after_warmup(record.steps) if not s.validation))),
    }
    avg = mean(durations)
    if avg and len(durations) > 1:
        var = sum((d - avg) ** 2 for d in durations) / (len(durations) - 1)
        out["step_time_cv"] = var ** 0.5 / avg
    samples = median(s.samples for s in steps)
    out["samples_per_step"] = int(samples) if samples is not None else None
    counted = [s.samples for s in steps if s.samples]
    out["samples_per_second"] = (ratio(sum(counted), sum(durations))  # type: ignore[arg-type]
                                 if steps and len(counted) == len(steps) else None)
    out.update(_shares(steps))
    out.update(_iteration_facts(record, steps))
    out.update(_warmup(record))
    out.update(_stall_facts(steps))
    out.update(_rare_heavy_facts(steps))
    out.update(_epoch_facts(record))
    validation = [s for s in record.steps if s.validation]
    out["validation_steps"] = len(validation)
    all_time = sum(s.duration for s in record.steps)
    out["validation_time_share"] = ratio(sum(s.duration for s in validation), all_time)
    return out
