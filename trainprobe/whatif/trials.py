"""Trials of the what-if: short bounded runs of the script, and the statistics over them.

Each trial is a fresh child process under the probe with a short window (a
few warm-up steps, then a few seconds of steady steps, no profilers). Its
figure is the facts' ``step_time`` of its run: the mean steady step, the same
base every share and gain of a diagnosis uses, or, when every trial counted its
samples, seconds per sample (``samples_per_second``): the only figure that compares
a fix that changes the batch size, and the same ratio as the step's otherwise.
Baseline and fix trials alternate, and each fix trial is paired with the baseline
of its round; the speed-up of a pair is the baseline's time over the fix's, and a
fix's result is the median over its pairs with the min–max as its interval.

A gain counts as *measured* only when there are at least two pairs, the
whole interval lies above ``GAIN_THRESHOLD`` (more than 5 % in every pair),
and the fix runs are faster than the baseline runs beyond their run-to-run
noise: a one-sided Welch t-test on the logarithms of the trials' median step
times, p < 0.05. On a shared machine a repeat of the same run can be twice as
slow; the test keeps such swings from passing for a gain. Anything less is
reported as "no measurable gain here".
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..probe.config import WindowPlan
from ..probe.events import read_events
from ..findings import Trial
from ..record import PHASE_WARMUP, RunRecord
from .inject import plugin_spec

__all__ = [
    "GAIN_THRESHOLD",
    "MIN_STEADY_STEPS",
    "trial_plan",
    "Trial",
    "Interval",
    "run_trial",
    "summarize_trial",
    "pair_ratios",
    "interval",
    "spread",
    "baseline_noise",
    "gain_threshold",
    "faster_than_noise",
    "is_measured_gain",
]

GAIN_THRESHOLD = 1.05  # the whole interval must be above this (and above the baseline noise)
MIN_STEADY_STEPS = 3  # a trial with fewer steady steps has no figure
_MAX_LOSSES_KEPT = 200


def trial_plan(max_seconds: Optional[float] = 60.0, memory: bool = False) -> WindowPlan:
    """The window every trial runs: short, timed by steps and seconds, no profilers; the counting step only
    when memory fixes are measured (``memory``: every trial of the what-if then records its peak memory)."""
    return WindowPlan(
        warmup_steps=3, warmup_max_seconds=15.0, steady_min_steps=6, steady_seconds=3.0,
        steady_max_steps=200, steady_max_seconds=12.0, max_seconds=max_seconds,
        profiler=False, cprofile=False, census=memory,
    )


@dataclass(frozen=True)
class Interval:
    """A speed-up over pairs: the median ratio and its min–max."""

    median: float
    low: float
    high: float
    n: int
    ratios: tuple[float, ...] = ()


def run_trial(index: int, label: str, target: Sequence[str], fixes: dict, out_dir: Path,
              plan: WindowPlan, timeout: Optional[float], python: str,
              run: Optional[Callable] = None) -> Trial:
    """Run the script once under the probe with ``fixes``; the script's output goes to a log file."""
    from ..probe.launch import ProbeOptions, run_probe

    run = run or run_probe
    out_dir.mkdir(parents=True, exist_ok=True)
    options = ProbeOptions(out_dir=out_dir, plan=plan, timeout=timeout, python=python,
                           plugins=(plugin_spec(fixes, record_loss=True),),
                           child_output=out_dir / "script-output.log")
    start = time.monotonic()
    try:
        result = run(target, options)
    except Exception as exc:  # one broken trial must not end the what-if
        return Trial(index, label, dict(fixes), str(out_dir), status="failed",
                     reason=f"trainprobe could not run the trial ({type(exc).__name__}: {exc})",
                     wall=time.monotonic() - start)
    return summarize_trial(index, label, fixes, out_dir, result.record, time.monotonic() - start)


def summarize_trial(index: int, label: str, fixes: dict, out_dir: Path, record: RunRecord,
                    wall: float) -> Trial:
    """A trial's figures from its run record (the facts' step time, the one definition of it) and
    the child's loss and fixes events."""
    from ..facts import compute_facts, facts_by_name

    facts = facts_by_name(compute_facts(record))
    steps = int(facts.get("steady_steps") or 0)
    losses, applied, details = _child_extras(out_dir / "events.jsonl")
    base = dict(index=index, label=label, fixes=dict(fixes), out_dir=str(out_dir), wall=wall,
                losses=losses, fixes_applied=applied, fix_details=details)
    status = record.outcome.status
    base["memory_peak"] = _memory_peak(facts)
    base["oom"] = bool(record.outcome.oom)
    if status == "interrupted":
        return Trial(status="interrupted", reason="interrupted with Ctrl-C", **base)
    # A trial ended by its timeout still measured its steady steps; so did one that ran out of memory after
    # them (a memory fix is tried on a script that does); another crash did not end cleanly enough.
    if status not in ("stopped", "completed", "timeout") and not record.outcome.oom or steps < MIN_STEADY_STEPS:
        why = record.outcome.reason or status
        if status in ("stopped", "completed", "timeout"):
            why = f"only {steps} steady steps were measured ({why})"
            if "compile" in fixes and steps == 0:
                why = f"compiling outlasted the trial's time: {why}"
        detail = f": {record.outcome.exception_message}" if record.outcome.exception_message else ""
        log = compile_log(out_dir) if "compile" in fixes else ""
        return Trial(status="failed", reason=f"{why}{detail}{log}", steps=steps, **base)
    warmup = facts.get("warmup_step_time")
    extra = dict(warmup_time=warmup * int(facts.get("warmup_steps") or 0) if warmup else None,
                 recompiles=record.settings.compile_recompiles)
    storm = compile_storm(fixes, extra["recompiles"])
    if storm:
        return Trial(status="failed", reason=storm + compile_log(out_dir), steps=steps, **base, **extra)
    return Trial(
        steps=steps, step_time=facts["step_time"],  # type: ignore[arg-type]
        steps_per_second=facts.get("steps_per_second"),  # type: ignore[arg-type]
        samples_per_second=facts.get("samples_per_second"),  # type: ignore[arg-type]
        epoch_start_step_time=facts.get("epoch_start_step_time"),  # type: ignore[arg-type]
        **base, **extra,
    )


def _memory_peak(facts: dict) -> Optional[int]:
    """The trial's peak memory: the CUDA allocator's peak over the steady steps, else the counted step's."""
    for name in ("gpu_allocated_peak", "memory_step_peak"):
        value = facts.get(name)
        if isinstance(value, (int, float)) and value > 0:
            return int(value)
    return None


_RECOMPILE_STORM = 8  # recompilations in one short trial: shapes change from step to step
_LOG_LINES = 30


def compile_storm(fixes: dict, recompiles: Optional[int]) -> Optional[str]:
    """Why a compiled trial's figure cannot stand (it recompiled over and over), or None."""
    if "compile" in fixes and recompiles is not None and recompiles >= _RECOMPILE_STORM:
        return (f"torch.compile recompiled {recompiles} times in one short run (the shapes or Python values it "
                "guards on change from step to step), so the steady speed could not be measured")
    return None


def compile_log(out_dir: Path) -> str:
    """Save the last lines of a compiled trial's output as compile.log beside it; a note naming it."""
    source = out_dir / "script-output.log"
    try:
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()[-_LOG_LINES:]
    except OSError:
        return ""
    if not lines:
        return ""
    target = out_dir / "compile.log"
    try:
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError:
        return ""
    return f" (the compile log's last lines: {target})"


def _child_extras(events_path: Path) -> tuple[tuple[float, ...], tuple[str, ...], tuple[str, ...]]:
    losses: list[float] = []
    applied: tuple[str, ...] = ()
    details: tuple[str, ...] = ()
    for event in read_events(events_path):
        kind = event.get("type")
        if kind == "loss":
            # Losses of the measured window; all of them if the run never left warm-up.
            values = event.get("values") or []
            measured = [v[2] for v in values if len(v) == 3 and v[1] != PHASE_WARMUP]
            losses = [float(v) for v in (measured or [v[2] for v in values if len(v) == 3])]
        elif kind == "fixes_applied":
            applied = tuple(event.get("fixes") or ())
            details = tuple(event.get("details") or ())
    return tuple(losses[:_MAX_LOSSES_KEPT]), applied, details


# -- statistics -------------------------------------------------------------------
def _per_sample(trials: Sequence[Trial]) -> bool:
    """Compare seconds per sample when every trial counted its samples: a fix that changes the batch
    size (larger_batch) changes the step, and only samples per second compare. With the batch
    unchanged the two ratios are the same (samples/s is samples over the steady time)."""
    return all(t.samples_per_second for t in trials if t.ok)


def _time(trial: Trial, per_sample: bool) -> float:
    """A trial's figure: seconds per sample, or its mean steady step."""
    return 1.0 / trial.samples_per_second if per_sample else trial.step_time  # type: ignore[operator,return-value]


def pair_ratios(pairs: Sequence[tuple[Trial, Trial]]) -> tuple[float, ...]:
    """Speed-up of each (baseline, fix) pair: the baseline's time over the fix's, per sample when every
    trial counted its samples, else per step."""
    pairs = [(b, f) for b, f in pairs if b.ok and f.ok and f.step_time and b.step_time]
    per_sample = _per_sample([t for pair in pairs for t in pair])
    return tuple(_time(b, per_sample) / _time(f, per_sample) for b, f in pairs)


def interval(ratios: Sequence[float]) -> Optional[Interval]:
    if not ratios:
        return None
    return Interval(median=statistics.median(ratios), low=min(ratios), high=max(ratios), n=len(ratios),
                    ratios=tuple(ratios))


def spread(trials: Sequence[Trial]) -> float:
    """How much repeats of one configuration differed: max/min - 1 of their times (per sample when
    every one counted its samples)."""
    ok = [t for t in trials if t.ok and t.step_time]
    per_sample = _per_sample(ok)
    times = [_time(t, per_sample) for t in ok]
    if len(times) < 2:
        return 0.0
    return max(times) / min(times) - 1.0  # type: ignore[type-var]


def baseline_noise(baselines: Sequence[Trial]) -> float:
    return spread(baselines)


# One-sided 95 % quantiles of Student's t, by degrees of freedom (rounded down: conservative).
_T95 = ((1, 6.314), (2, 2.920), (3, 2.353), (4, 2.132), (5, 2.015), (6, 1.943), (7, 1.895), (8, 1.860),
        (9, 1.833), (10, 1.812), (12, 1.782), (15, 1.753), (20, 1.725), (30, 1.697), (60, 1.671))


def _t95(df: float) -> float:
    value = _T95[0][1]
    for d, t in _T95:
        if df >= d:
            value = t
    return value


def faster_than_noise(baseline_times: Sequence[float], fix_times: Sequence[float]) -> bool:
    """One-sided Welch t-test on log step times: are the fix runs faster beyond run-to-run noise (p < 0.05)?

    Logarithms, because run-to-run noise on a shared machine scales the step time.
    """
    import math

    b = [math.log(t) for t in baseline_times if t and t > 0]
    f = [math.log(t) for t in fix_times if t and t > 0]
    if len(b) < 2 or len(f) < 2:
        return False
    diff = statistics.fmean(b) - statistics.fmean(f)
    vb, vf = statistics.variance(b) / len(b), statistics.variance(f) / len(f)
    se2 = vb + vf
    if se2 == 0:
        return diff > 0
    df = se2 ** 2 / ((vb ** 2 / (len(b) - 1) if vb else 0.0) + (vf ** 2 / (len(f) - 1) if vf else 0.0))
    return diff / math.sqrt(se2) > _t95(df)


def gain_threshold(noise: float = 0.0) -> float:
    return GAIN_THRESHOLD


def is_measured_gain(result: Optional[Interval], pairs: Sequence[tuple[Trial, Trial]] = ()) -> bool:
    """Two pairs or more, every one faster than GAIN_THRESHOLD, and faster beyond the run-to-run noise."""
    if result is None or result.n < 2 or result.low <= GAIN_THRESHOLD:
        return False
    baselines = list({id(b): b for b, _ in pairs if b.ok}.values())
    fixes = [f for _, f in pairs if f.ok]
    per_sample = _per_sample(baselines + fixes)
    return faster_than_noise([_time(b, per_sample) for b in baselines], [_time(f, per_sample) for f in fixes])
