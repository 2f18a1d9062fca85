"""A second run for scripts that end before the profiling windows: windows fitted to the first run.

The default windows are sized by time (a steady window of seconds, then
torch.profiler and cProfile). A script that ends first (a 50-step example, one
short epoch) leaves a record without an op profile or a Python profile, so
the findings that need them cannot speak. A script shorter than the warm-up
(five iterations of a GAN) leaves only warm-up steps. The first run taught how
many steps the script makes; the second one spreads the windows over them, and
stops once they are done: it costs at most the script's own length.

The counting steps after warm-up (probe/census.py) take steps too: a fitted
plan takes them from the steady window's share. A run too short for the usual
windows (about ``MIN_STEPS_TO_FIT`` steps or fewer) gets the shortest ones that
still give a verdict: one warm-up step, at least ``FEWEST_STEPS`` steady steps,
then, as far as the steps allow, a one-step torch.profiler window, one counting
step, and a one-step cProfile window (facts/window.py says when so few steps
are enough to judge from).

A run of a few long updates, each over many micro-batches (a fine-tune of
three optimizer steps of 32 micro-batches), is judged from one step's
micro-batches (facts/window.py), so its second run needs only one steady
step: the others go to the windows, the torch.profiler window first
(``micro_plan``); a run of two steps has its second profiled and judged.

A script whose first run made no step at all, yet fetched DataLoader batches,
trains by hand on bare tensors (omarsar's logistic regression, test set 7:
``torch.mm`` and a hand-written gradient; no backward, optimizer or
nn.Module). Nothing the hooks see marks its iterations, so the second run
takes each batch of the loader that begins an iteration as the next one's
start (``batches_only``, ``WindowPlan.steps_by_batches``).

A script may not run twice in one place: hysts' image classification (test set
7) refuses the output folder its first run made. A second run that ends so,
before the first run's steps, measured less than the first: the first stands
(``second_run_lost``, ``put_back``). So does a second run that ends by itself
after fewer steps than the first made: a script that resumes from the checkpoint
its first run saved trains nothing again (solo-learn's auto-resume on Lightning,
test set 16, whose second run made no step and left no verdict).
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Optional

from ..facts.window import FEWEST_STEPS, MIN_STEADY_STEPS, micro_batches_of
from ..record import PHASE_WARMUP, RunRecord
from .config import WindowPlan

__all__ = ["windows_missed", "all_warmup", "batches_only", "fitted_plan", "refit", "set_aside", "second_run_lost", "put_back",
           "training_steps", "micro_plan",
           "FIRST_RUN", "SECOND_RUN", "MIN_STEPS_TO_FIT"]

FIRST_RUN = "first-run"  # where the first run's files go, beside the second's
SECOND_RUN = "second-run"  # where a second run that measured less goes, when the first run's files come back
MIN_STEPS_TO_FIT = MIN_STEADY_STEPS + 5  # a warm-up step, the steady window, 2 + 2 profiled steps


def training_steps(record: RunRecord) -> int:
    """The run's training steps (validation steps left out)."""
    return sum(1 for s in record.steps if not s.validation)


def windows_missed(record: RunRecord, plan: WindowPlan) -> bool:
    """The script ended by itself before a profiling window it was meant to get."""
    if record.outcome.status != "completed":
        return False
    return _missed(record, plan)


def _missed(record: RunRecord, plan: WindowPlan) -> bool:
    return (plan.profiler and not record.profiler.availability.available) or \
        (plan.cprofile and not record.hotspots.availability.available)


def all_warmup(record: RunRecord) -> bool:
    """The script ended by itself while every training step it made was still warm-up."""
    training = [s for s in record.steps if not s.validation]
    return record.outcome.status == "completed" and bool(training) and \
        all(s.phase == PHASE_WARMUP for s in training)


def batches_only(record: RunRecord) -> Optional[int]:
    """The script ran to its end without a step, a backward, an optimizer step or a module forward, but
    fetched DataLoader batches: the fewest batches of a loader that gave some (the loader that begins
    each iteration gives at least that many), else None."""
    settings = record.settings
    if record.outcome.status != "completed" or record.steps or settings is None or \
            settings.backward_calls or settings.optimizer_steps or settings.models:
        return None
    batches = [d.batches for d in settings.dataloaders if d.batches]
    return min(batches) if batches else None


def _default_windows_fit(plan: WindowPlan, batches: int, seconds: float) -> bool:
    """The default windows (sized by time; they end the run once done) fit ``batches`` iterations of a
    run that took ``seconds``, with room to spare: a long run is then not made again whole."""
    per_batch = seconds / batches  # an overestimate (the run's start and its code outside the loop count)
    needed = plan.warmup_steps + (plan.census_steps if plan.census else 0) + \
        max(plan.steady_min_steps, plan.steady_seconds / per_batch) + \
        max(plan.profile_min_steps, plan.profile_seconds / per_batch) + \
        max(plan.cprofile_min_steps, plan.cprofile_seconds / per_batch)
    return 2 * needed < batches


def fitted_plan(plan: WindowPlan, steps: int) -> Optional[WindowPlan]:
    """Windows that fit ``steps`` training steps (the last one is kept as a margin); for fewer than
    MIN_STEPS_TO_FIT, the shortest windows (``_short_plan``); None when not even FEWEST_STEPS steady
    steps fit after a warm-up step."""
    usable = steps - 1
    profiled = 3 if usable >= 20 else 2
    per_window = (profiled if plan.profiler else 0) + (profiled if plan.cprofile else 0)
    warmup = max(1, min(plan.warmup_steps, usable // 10))
    census = plan.census_steps if plan.census else 0
    steady = usable - warmup - per_window - census
    if steady < MIN_STEADY_STEPS:
        return _short_plan(plan, steps)
    unbounded = 1e9  # counted by steps, not seconds
    return dataclasses.replace(
        plan, warmup_steps=warmup, warmup_max_seconds=unbounded, steps=steady, steady_max_seconds=unbounded,
        profile_min_steps=profiled, profile_max_steps=profiled, profile_seconds=0.0,
        cprofile_min_steps=profiled, cprofile_max_steps=profiled, cprofile_seconds=0.0)


def _short_plan(plan: WindowPlan, steps: int) -> Optional[WindowPlan]:
    """One warm-up step, then the steady steps, then one step for each window while at least
    FEWEST_STEPS steady steps remain: the torch.profiler window first (its op split tells launch from
    compute), then one counting step (FLOPs and memory, without the leak check two would give), then
    cProfile. The hardware's peak is measured after the run either way (``peak``): it is the hardware's, not
    the steps' (PyTorch-YOLOv3's 5 steps in test set 17 left no step to count, and without a peak the bf16
    lever could not be judged). No margin: a window open when the script ends is closed and kept
    (probe/instrument.py)."""
    steady = steps - 1
    profiler = plan.profiler and steady - 1 >= FEWEST_STEPS
    steady -= 1 if profiler else 0
    census = plan.census and plan.census_steps > 0 and steady - 1 >= FEWEST_STEPS
    steady -= 1 if census else 0
    cprofile = plan.cprofile and steady - 1 >= FEWEST_STEPS
    steady -= 1 if cprofile else 0
    if steady < FEWEST_STEPS:
        return None
    unbounded = 1e9
    return dataclasses.replace(
        plan, warmup_steps=1, warmup_max_seconds=unbounded, steps=steady, steady_max_seconds=unbounded,
        census=census, census_steps=1, peak=plan.census or plan.peak,
        profiler=profiler, profile_min_steps=1, profile_max_steps=1, profile_seconds=0.0,
        cprofile=cprofile, cprofile_min_steps=1, cprofile_max_steps=1, cprofile_seconds=0.0)


def micro_plan(plan: WindowPlan, record: RunRecord) -> Optional[WindowPlan]:
    """For a run whose steps after the first were split into micro-batches (some of them at least: a step
    not split counts as one, facts/window.py), FEWEST_STEPS in all at least: one warm-up step, then the
    torch.profiler window's step, then one step for each further window while steps remain (a counting step,
    then cProfile), and the rest steady. A run of two steps gets no steady step: its profiled step is the one
    judged (facts/window.py takes the steps after warm-up when no steady one was measured), the profiler's few
    percent a fair price for the op mix that the bfloat16 and torch.compile levers read. Only closed steps count: a window open when the
    script ends holds no whole step. None without such a split, or with no step for the profiler."""
    training = [s for s in record.steps if not s.validation]
    split = micro_batches_of(record, training[1:])
    if split is None or sum(map(len, split)) < FEWEST_STEPS:
        return None
    spare = len(training) - 1  # after the warm-up step
    profiler, census, cprofile = (plan.profiler and spare >= 1, plan.census and spare >= 3,
                                  plan.cprofile and spare >= 4)
    if not profiler:
        return None
    unbounded = 1e9
    return dataclasses.replace(
        plan, warmup_steps=1, warmup_max_seconds=unbounded, steps=spare - profiler - census - cprofile,
        steady_max_seconds=unbounded, census=census, census_steps=1, peak=plan.census or plan.peak,
        profiler=profiler, profile_min_steps=1, profile_max_steps=1, profile_seconds=0.0,
        cprofile=cprofile, cprofile_min_steps=1, cprofile_max_steps=1, cprofile_seconds=0.0)


def refit(record: RunRecord, plan: WindowPlan) -> Optional[WindowPlan]:
    """The plan for a second run, when the first ended by itself before its windows or with only
    warm-up steps, and its steps allow one that measures more than the first did; or when it made no
    step but fetched batches (``batches_only``)."""
    batches = batches_only(record)
    if batches is not None:
        fitted = plan if _default_windows_fit(plan, batches, record.outcome.duration) else fitted_plan(plan, batches)
        return None if fitted is None else dataclasses.replace(fitted, steps_by_batches=True)
    warmup_only = all_warmup(record)
    if not (warmup_only or windows_missed(record, plan)):
        return None
    fitted = fitted_plan(plan, training_steps(record))
    if fitted is None or not fitted.profiler:
        fitted = micro_plan(plan, record) or fitted
    if fitted is None or not (warmup_only or _missed(record, fitted)):
        return None  # the windows that fit are the ones the first run has already
    return fitted


def second_run_lost(first: RunRecord, second: RunRecord) -> bool:
    """The second run ended before making the steps the first one made, by an error (or was ended), or by
    itself: a script that will not run twice in one place (one that refuses an output folder the first
    run left, a lock file, a port still held) or that resumes where its first run ended (a checkpoint it
    saved) gives no second measurement, and the first run stands. Only trainprobe's own stop, once the
    fitted windows are done, may end it sooner."""
    return second.outcome.status != "stopped" and training_steps(second) < training_steps(first)


def set_aside(out_dir: Path, name: str = FIRST_RUN) -> Path:
    """Move the run's files in ``out_dir`` into ``out_dir/name`` (first-run, so that the second run
    starts clean)."""
    target = out_dir / name
    target.mkdir(exist_ok=True)
    for item in list(out_dir.iterdir()):
        if item.name not in (FIRST_RUN, SECOND_RUN):
            shutil.move(str(item), str(target / item.name))
    return target


def put_back(out_dir: Path) -> Path:
    """The second run's files into ``out_dir/second-run``, and the first run's back where they were."""
    set_aside(out_dir, SECOND_RUN)
    first = out_dir / FIRST_RUN
    for item in list(first.iterdir()):
        shutil.move(str(item), str(out_dir / item.name))
    first.rmdir()
    return out_dir / "run.json"
