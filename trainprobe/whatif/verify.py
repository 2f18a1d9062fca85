"""The measured what-if as a stage: plan, run the trials, and say what was measured.

:func:`run_whatif` takes a run record and its diagnosis and returns a
:class:`~trainprobe.findings.WhatIf`: a verification for every finding (by
finding id), the combined run of every helpful fix, and every trial. It
writes nothing but the trials' own folders (``verify/`` beside the record);
``trainprobe.api`` puts its measurements on the diagnosis
(``Diagnosis.with_whatif``) and writes the outputs, and ``trainprobe report``
finds them again in ``diagnosis.json``.
"""

from __future__ import annotations

import contextlib
import os
import statistics
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..facts.window import steady_steps
from ..findings import Diagnosis, Finding, Trial, TriedFix, Verification, WhatIf
from ..record import Invocation, RunRecord
from .fixes import REGISTRY
from .plan import Candidate, changes_numerics, plan_candidates
from .session import Outcome, Session
from .compile_cost import RunLength, compile_cost_text, run_length
from .trials import GAIN_THRESHOLD, Interval, is_measured_gain, spread

__all__ = ["run_whatif", "target_of", "WhatIfUnavailable", "DEFAULT_BUDGET"]


class WhatIfUnavailable(Exception):
    """The what-if cannot run for this record (its script is gone...); the message says why."""


DEFAULT_BUDGET = 180.0  # seconds


def target_of(invocation: Invocation) -> list[str]:
    """The argv to run the recorded script again, or WhatIfUnavailable saying why it cannot be."""
    if invocation.redacted:
        raise WhatIfUnavailable(
            f"the record holds <redacted> values for {', '.join(invocation.redacted)}, so the script cannot be "
            "run again from it: use `trainprobe diagnose --verify` (it re-runs with the arguments in memory), "
            "or diagnose with --keep-args to save them")
    if invocation.module:
        return ["-m", invocation.module, *invocation.args]
    if not invocation.script:
        raise WhatIfUnavailable("the run record does not say which script ran")
    if not Path(invocation.script).exists():
        raise WhatIfUnavailable(f"the recorded script is gone: {invocation.script}")
    return [invocation.script, *invocation.args]


@contextlib.contextmanager
def _in_folder(path: str):
    """Run the trials from the folder the script was run from (relative data paths)."""
    before = os.getcwd()
    moved = bool(path) and os.path.isdir(path) and path != before
    if moved:
        os.chdir(path)
    try:
        yield
    finally:
        if moved:
            os.chdir(before)


def _fresh_folder(run_dir: Path) -> Path:
    folder, n = run_dir / "verify", 1
    while folder.exists():
        n += 1
        folder = run_dir / f"verify-{n}"
    return folder


def run_whatif(record: RunRecord, diagnosis: Diagnosis, run_dir: Path, budget: float = DEFAULT_BUDGET,
               progress: Callable[[str], None] = lambda line: None, run: Optional[Callable] = None,
               target: Optional[Sequence[str]] = None) -> WhatIf:
    """Measure each injectable fix of ``diagnosis``'s findings on the record's script within ``budget``
    seconds (``target``: the argv as given, when the record's is redacted). Raises WhatIfUnavailable
    when the script cannot be run again."""
    target = list(target) if target else target_of(record.invocation)
    candidates, decided, answers = plan_candidates(record, diagnosis)
    outcome = Outcome()
    if candidates and not steady_steps(record):
        progress("what-if: skipped: the run measured no training steps to compare against")
        candidates, answers = [], {}
    if candidates:
        names = ", ".join(c.key for c in candidates)
        progress(f"what-if: measuring {names} against the baseline, within {budget:g} s")
        session = Session(target, _fresh_folder(Path(run_dir)), budget,
                          record.invocation.python_executable or "python", progress, run)
        with _in_folder(record.invocation.cwd):
            try:
                outcome = session.run(candidates)
            except KeyboardInterrupt:  # between trials: keep what was measured
                outcome = session.interrupted()
    elif diagnosis.findings:
        progress("what-if: no finding has a fix trainprobe can apply at run time")
    else:
        progress("what-if: no finding, so no fix to measure")
    verifications = {}
    length = run_length(record)
    for finding in diagnosis.findings:
        verification = _verified(finding, decided, answers, candidates, outcome, length)
        if verification is not None:
            verifications[finding.id] = verification
    combined = _combined(outcome)
    for line in _report_lines(diagnosis.findings, verifications, combined):
        progress(line)
    return WhatIf(
        budget=budget, elapsed=outcome.elapsed, gain_threshold=GAIN_THRESHOLD, baseline_noise=outcome.noise,
        stopped=outcome.stopped, verifications=verifications, combined=combined,
        combined_fixes=dict(outcome.combined.fixes) if outcome.combined else {},
        tried=tuple(_tried(c, outcome) for c in candidates), trials=tuple(outcome.trials))


def _tried(candidate: Candidate, outcome: Outcome) -> TriedFix:
    result = outcome.results.get(candidate.key)
    return TriedFix(key=candidate.key, fix_id=candidate.fix_id, fixes=dict(candidate.fixes),
                    speedup=result.median if result else None, low=result.low if result else None,
                    high=result.high if result else None, ratios=tuple(result.ratios) if result else (),
                    skipped=outcome.skipped.get(candidate.key))


# -- verifications ------------------------------------------------------------------
def _verified(finding: Finding, decided: dict, answers: dict, candidates: Sequence[Candidate],
              outcome: Outcome, length: "RunLength") -> Optional[Verification]:
    if finding.id in decided:
        return decided[finding.id]
    keys = answers.get(finding.id, [])
    if not keys:
        return None
    by_key = {c.key: c for c in candidates}
    return _verification([by_key[k] for k in keys], outcome, length)


def _verification(options: list[Candidate], outcome: Outcome, length: Optional["RunLength"] = None) -> Verification:
    tried = [c for c in options if outcome.pairs.get(c.key)]
    if tried and any(REGISTRY[c.fix_id].memory for c in options if c.fix_id in REGISTRY):
        return _memory_verification(tried, outcome)
    if not tried:
        if outcome.stopped:
            status = "failed" if outcome.stopped.startswith("the baseline") else "not_run"
            return Verification(status=status, text=f"not tried: {outcome.stopped}")
        why = next((outcome.skipped[c.key] for c in options if c.key in outcome.skipped), "not tried")
        return Verification(status="not_run", text=why)
    measured = [c for c in tried if outcome.results.get(c.key) is not None]
    if not measured:
        base, fix = outcome.pairs[tried[0].key][-1]
        which = f"the trial with {tried[0].key}" if not fix.ok else "its baseline trial"
        reason = fix.reason if not fix.ok else base.reason
        return Verification(status="failed", text=f"{which} failed: {reason}")
    # The best value: a measured gain first, then the largest median.
    best = max(measured, key=lambda c: (is_measured_gain(outcome.results[c.key], outcome.pairs[c.key]),
                                        outcome.results[c.key].median))  # type: ignore[union-attr]
    result = outcome.results[best.key]
    assert result is not None
    pairs = outcome.pairs[best.key]
    fix_trials = [f for _, f in pairs if f.ok]
    gained = is_measured_gain(result, pairs)
    which = f" with {best.key}" if len(options) > 1 or best.key != best.fix_id else ""
    others = [c for c in measured if c is not best]
    if others:
        which += " (" + ", ".join(f"{c.key}: {_ratio(outcome.results[c.key].median)}"  # type: ignore[union-attr]
                                  for c in others) + ")"
    fix = REGISTRY.get(best.fix_id)
    per_sample = _per_sample(best)
    text = _gain_text(result, _noise(pairs), gained, which, per_sample) + _rates_text(pairs)
    acted = _acted(best, fix_trials)
    if not acted:
        text += f"; note: {best.fix_id} found nothing to change in this run"
    elif fix is not None and fix.caveat:
        text += f"; {fix.caveat}"
    if best.fix_id == "persistent_workers":
        text += _epoch_start_text(pairs)
    if best.fix_id == "compile":
        text += compile_cost_text(pairs, length or RunLength())
    losses_base: tuple[float, ...] = ()
    losses_fix: tuple[float, ...] = ()
    if changes_numerics(best):
        base, fix = next(((b, f) for b, f in pairs if b.ok and f.ok), pairs[0])
        losses_base, losses_fix = base.losses, fix.losses
        text += _loss_text(losses_base, losses_fix)
    return Verification(status="measured" if gained else "no_gain", speedup=result.median, low=result.low,
                        high=result.high, n=result.n, text=text, loss_baseline=losses_base,
                        loss_fix=losses_fix)


MEMORY_THRESHOLD = 0.95  # a memory fix "measured" when every pair's peak fell below this share of its baseline's


def _memory_verification(tried: list[Candidate], outcome: Outcome) -> Verification:
    """Memory fixes: each one's peak memory beside its speed (they save memory at a cost in time)."""
    parts, best = [], None
    for candidate in tried:
        pairs = outcome.pairs[candidate.key]
        good = [(b, f) for b, f in pairs if b.ok and f.ok]
        if not good:
            base, fix = pairs[-1]
            parts.append(f"{candidate.key}: the trial failed: {fix.reason if not fix.ok else base.reason}")
            continue
        text, saved = _memory_text(candidate, good)
        result = outcome.results.get(candidate.key)
        if result is not None:
            span = f"{_ratio(result.low)[:-1]}–{_ratio(result.high)[:-1]}× the baseline's speed, n={result.n}"
            if result.low < 1.0 < result.high:
                text += f"; step time within the run-to-run noise ({span})"
            else:
                faster = result.median >= 1.0
                speed = _ratio(result.median if faster else 1 / result.median)
                text += f"; steps {speed} {'faster' if faster else 'slower'} ({span})"
        if not _acted(candidate, [f for _, f in good]):
            text += f" (note: {candidate.fix_id} found nothing to change in this run)"
        elif changes_numerics(candidate):
            text += _loss_text(good[0][0].losses, good[0][1].losses)
        parts.append(text)
        if saved and (best is None or saved > best[1]):
            best = (candidate, saved)
    status = "measured" if best is not None else "no_gain"
    lead = "measured: " if best is not None else "no measurable memory saving here: "
    result = outcome.results.get(best[0].key) if best is not None else None
    return Verification(status=status, speedup=result.median if result else None, low=result.low if result else None,
                        high=result.high if result else None, n=result.n if result else 0,
                        text=lead + "; ".join(parts))


def _memory_text(candidate: Candidate, pairs: list[tuple[Trial, Trial]]) -> tuple[str, float]:
    """"key: peak memory X with the fix, Y without (-Z%)" and the median share saved (0 unless every pair saved
    more than 5%)."""
    with_peaks = [(b.memory_peak, f.memory_peak) for b, f in pairs if b.memory_peak and f.memory_peak]
    ooms = sum(1 for _, f in pairs if f.oom), sum(1 for b, _ in pairs if b.oom)
    oom = (f"; ran out of memory in {ooms[0]} of {len(pairs)} trials with it, {ooms[1]} of {len(pairs)} without"
           if any(ooms) else "")
    if not with_peaks:
        return f"{candidate.key}: peak memory not measured{oom}", 0.0
    base = statistics.median(b for b, _ in with_peaks)
    fix = statistics.median(f for _, f in with_peaks)
    change = fix / base - 1
    saved = -change if all(f < b * MEMORY_THRESHOLD for b, f in with_peaks) else 0.0
    return (f"{candidate.key}: peak memory {_mib(fix)} with it, {_mib(base)} without ({change:+.0%}){oom}",
            saved)


def _mib(value: float) -> str:
    return f"{value / 2**30:.2f} GiB" if value >= 2**30 else f"{value / 2**20:,.0f} MiB"


def _acted(candidate: Candidate, fix_trials: list[Trial]) -> bool:
    return any(candidate.fix_id in t.fixes_applied for t in fix_trials) or not fix_trials


def _ratio(value: float) -> str:
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×"


def _per_sample(candidate: Candidate) -> bool:
    """Whether the candidate changes the samples per step (its gain is in samples per second)."""
    return any(REGISTRY[f].per_sample for f in candidate.fixes if f in REGISTRY)


def _gain_text(result: Interval, noise: float, gained: bool, which: str = "", per_sample: bool = False) -> str:
    """"measured: 2.4× faster steps (2.3–2.5, n=3)" (or "2.4× more samples per second" for a fix that
    changes the batch size) or "no measurable gain here: …"."""
    span = f"({_ratio(result.low)[:-1]}–{_ratio(result.high)[:-1]}, n={result.n})"
    if gained:
        return f"measured: {_ratio(result.median)} {'more samples per second' if per_sample else 'faster steps'} {span}{which}"
    if result.n < 2:
        return (f"not confirmed: {_ratio(result.median)}{which} in a single pair, not repeated within the "
                "--verify-budget (raise it to measure an interval)")
    slower = " (slower with the fix)" if result.high < 1.0 else ""
    bar = ""
    if result.low > GAIN_THRESHOLD:
        bar = (f", within the run-to-run noise of this machine (repeats of the same run differed by up to "
               f"{noise:.0%})")
    return f"no measurable gain here: {_ratio(result.median)} {span}{which}{slower}{bar}"


def _noise(pairs: Sequence[tuple[Trial, Trial]]) -> float:
    """The larger spread of the repeats: of the baselines, or of the fix runs."""
    baselines = list({id(b): b for b, _ in pairs}.values())
    return max(spread(baselines), spread([f for _, f in pairs]))


def _rates_text(pairs: list[tuple[Trial, Trial]]) -> str:
    base = [b.samples_per_second for b, _ in pairs if b.samples_per_second]
    fix = [f.samples_per_second for _, f in pairs if f.samples_per_second]
    if base and fix:
        return (f"; {statistics.median(fix):,.0f} samples/s with the fix, {statistics.median(base):,.0f} "
                "without (medians over the runs)")
    base = [b.steps_per_second for b, _ in pairs if b.steps_per_second]
    fix = [f.steps_per_second for _, f in pairs if f.steps_per_second]
    if base and fix:
        return (f"; {statistics.median(fix):.3g} steps/s with the fix, {statistics.median(base):.3g} "
                "without (medians over the runs)")
    return ""


def _epoch_start_text(pairs: list[tuple[Trial, Trial]]) -> str:
    base = [b.epoch_start_step_time for b, _ in pairs if b.epoch_start_step_time]
    fix = [f.epoch_start_step_time for _, f in pairs if f.epoch_start_step_time]
    if base and fix:
        return (f"; its gain is at each epoch start: the first step of an epoch took "
                f"{statistics.median(fix):.2f} s with it, {statistics.median(base):.2f} s without")
    return "; its gain is at each epoch start, which the short measured window did not reach"


def _loss_text(base: Sequence[float], fix: Sequence[float]) -> str:
    if not base or not fix:
        return "; the loss could not be recorded"
    def describe(values):
        return f"mean {statistics.fmean(values):.4g} (first {values[0]:.4g}, last {values[-1]:.4g})"
    return f"; loss over the window {describe(fix)} vs baseline {describe(base)}"


# -- the combined run ---------------------------------------------------------------
def _combined(outcome: Outcome) -> Optional[Verification]:
    if outcome.combined is None:
        return None
    result = outcome.combined_result
    fixes = outcome.combined.fixes
    names = ", ".join(f"{k}={v}" if v is not True else k for k, v in fixes.items())
    if result is None:
        status = "not_run" if not outcome.combined_pairs else "failed"
        return Verification(status=status, text=f"the combined run ({names}) could not be measured within the budget")
    gained = is_measured_gain(result, outcome.combined_pairs)
    text = (f"what your script could do with {names}: "
            + _gain_text(result, _noise(outcome.combined_pairs), gained, per_sample=_per_sample(outcome.combined))
            + _rates_text(outcome.combined_pairs))
    losses_base: tuple[float, ...] = ()
    losses_fix: tuple[float, ...] = ()
    if changes_numerics(outcome.combined):
        base, fix = next(((b, f) for b, f in outcome.combined_pairs if b.ok and f.ok), outcome.combined_pairs[0])
        losses_base, losses_fix = base.losses, fix.losses
        text += _loss_text(losses_base, losses_fix)
    return Verification(status="measured" if gained else "no_gain", speedup=result.median, low=result.low,
                        high=result.high, n=result.n, text=text, loss_baseline=losses_base, loss_fix=losses_fix)


def _report_lines(findings: Sequence[Finding], verifications: dict[str, Verification],
                  combined: Optional[Verification]) -> list[str]:
    lines = []
    for f in findings:
        v = verifications.get(f.id)
        if v is not None and v.status in ("measured", "no_gain", "failed"):
            lines.append(f"what-if: {f.id}: {v.text}")
    if combined is not None:
        lines.append(f"what-if: {combined.text}")
    return lines
