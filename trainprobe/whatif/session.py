"""Running the what-if's trials within the budget: baseline and fixes alternating, then combined.

The first baseline trial times a trial; the schedule (see ``plan.schedule``)
is sized from it, and every later trial is started only when the time left
still covers one more (the estimate follows the trials seen so far).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from .fixes import REGISTRY
from .plan import COMBINED_PAIRS, Candidate, schedule
from ..findings import Trial
from .trials import Interval, baseline_noise, interval, is_measured_gain, pair_ratios, run_trial, trial_plan

__all__ = ["Outcome", "Session", "combined_fixes"]

_COST_MARGIN = 1.1  # trials vary; plan with a little slack
_MAX_TRIAL_SECONDS = 60.0  # a trial's own --max-seconds, at most
_MIN_TRIAL_SECONDS = 15.0  # ...and at least: start-up plus a few steps
_HANG_GRACE = 30.0  # seconds past its --max-seconds before a trial is ended as hung


@dataclass
class Outcome:
    """Everything the trials gave."""

    trials: list[Trial] = field(default_factory=list)
    pairs: dict[str, list[tuple[Trial, Trial]]] = field(default_factory=dict)  # candidate key -> pairs
    results: dict[str, Optional[Interval]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # candidate key -> why it was not tried
    noise: float = 0.0
    combined: Optional[Candidate] = None
    combined_pairs: list[tuple[Trial, Trial]] = field(default_factory=list)
    combined_result: Optional[Interval] = None
    stopped: Optional[str] = None  # why the trials ended early (interrupted, baseline failed)
    elapsed: float = 0.0

    def baselines(self) -> list[Trial]:
        return [t for t in self.trials if t.label == "baseline"]


class Session:
    def __init__(self, target: Sequence[str], out_dir: Path, budget: float, python: str,
                 progress: Callable[[str], None] = lambda line: None, run: Optional[Callable] = None) -> None:
        self.target = list(target)
        self.out_dir = out_dir
        self.budget = float(budget)
        self.python = python
        self.progress = progress
        self.run_probe = run
        self.start = time.monotonic()
        self.outcome = Outcome()
        self.planned = 1
        self.memory = False  # memory fixes are measured: every trial runs the counting step

    # -- one trial --------------------------------------------------------------------
    def _left(self) -> float:
        return self.budget - (time.monotonic() - self.start)

    def _cost(self) -> float:
        walls = [t.wall for t in self.outcome.trials if t.wall > 0]
        return _COST_MARGIN * (statistics.median(walls) if walls else 0.0)

    def _trial(self, label: str, fixes: dict) -> Optional[Trial]:
        """Run one trial if the budget still covers it; None when it does not."""
        index = len(self.outcome.trials) + 1
        if self.outcome.trials and self._left() < self._cost():
            return None
        self.planned = max(self.planned, index)
        what = "the baseline" if label == "baseline" else label
        count = f"trial {index} of {self.planned}" if index > 1 else "trial 1, which times the others"
        self.progress(f"what-if: trying {what} ({count})")
        folder = self.out_dir / f"{index:02d}-{_slug(label)}"
        extra = _extra_seconds(fixes)
        max_seconds = min(_MAX_TRIAL_SECONDS + extra, max(_MIN_TRIAL_SECONDS + extra, self._left()))
        plan = trial_plan(max_seconds=max_seconds, memory=self.memory)
        timeout = max_seconds + _HANG_GRACE  # only for a script that hangs: the window ends it before
        trial = run_trial(index, label, self.target, dict(fixes), folder, plan, timeout,
                          self.python, self.run_probe)
        self.outcome.trials.append(trial)
        if trial.ok:
            memory = f", peak memory {trial.memory_peak / 2**20:,.0f} MiB" if self.memory and trial.memory_peak else ""
            oom = ", then ran out of memory" if trial.oom else ""
            self.progress(f"what-if: {label}: {trial.step_time * 1e3:.3g} ms/step over {trial.steps} steps{memory}{oom}")
        else:
            self.progress(f"what-if: {label}: no figure ({trial.reason})")
        return trial

    # -- the whole what-if ------------------------------------------------------------
    def run(self, candidates: Sequence[Candidate]) -> Outcome:
        out = self.outcome
        self.memory = any(REGISTRY[c.fix_id].memory for c in candidates if c.fix_id in REGISTRY)
        first = self._trial("baseline", {})
        if first is None or not first.ok:
            out.stopped = "interrupted" if first is not None and first.status == "interrupted" else \
                f"the baseline trial failed: {first.reason if first else 'no time'}"
            return self._done()
        distinct = len({c.fix_id for c in candidates})
        plan = schedule(len(candidates), self._cost(), self._left(), combined=distinct > 1)
        self.planned = 1 + len(plan.order) + (2 * COMBINED_PAIRS if distinct > 1 else 0)
        for c in candidates[plan.candidates:]:
            out.skipped[c.key] = "not tried: the --verify-budget ran out before it (raise the budget)"
        baseline = first
        broken: set[str] = set()  # a fix that made the script fail is not tried again
        order = list(plan.order)
        for position, item in enumerate(order):
            label = "baseline" if item is None else candidates[item].key
            if label in broken:
                continue
            if item is None and all(i is None or candidates[i].key in broken for i in order[position:]):
                break  # nothing left to pair this baseline with
            trial = self._trial(label, {} if item is None else candidates[item].fixes)
            if trial is None:
                break
            if trial.status == "interrupted":
                out.stopped = "interrupted"
                break
            if item is None:
                baseline = trial if trial.ok else baseline  # a failed baseline: pair with the last good one
            else:
                out.pairs.setdefault(label, []).append((baseline, trial))
                if not trial.ok:
                    broken.add(label)
        for c in candidates[:plan.candidates]:
            if c.key not in out.pairs and c.key not in out.skipped:
                out.skipped[c.key] = "not tried: the --verify-budget ran out before it (raise the budget)"
        out.noise = baseline_noise(out.baselines())
        for key, pairs in out.pairs.items():
            out.results[key] = interval(pair_ratios(pairs))
        if out.stopped is None:
            self._combined(candidates)
        return self._done()

    def _combined(self, candidates: Sequence[Candidate]) -> None:
        """All helpful fixes together: the best value of each fix id that measured a gain."""
        out = self.outcome
        fixes = combined_fixes(candidates, out.results, out.pairs)
        if fixes is None:
            return
        out.combined = Candidate("combined", "combined", fixes)
        for _ in range(COMBINED_PAIRS):
            baseline = self._trial("baseline", {})
            if baseline is None or baseline.status == "interrupted":
                break
            combined = self._trial("combined", fixes)
            if combined is None or combined.status == "interrupted":
                break
            out.combined_pairs.append((baseline, combined))
        out.noise = baseline_noise(out.baselines())
        out.combined_result = interval(pair_ratios(out.combined_pairs))

    def interrupted(self) -> Outcome:
        """What was measured when Ctrl-C arrived between trials."""
        out = self.outcome
        out.stopped = "interrupted"
        for key, pairs in out.pairs.items():
            out.results[key] = interval(pair_ratios(pairs))
        return self._done()

    def _done(self) -> Outcome:
        self.outcome.elapsed = time.monotonic() - self.start
        return self.outcome


def combined_fixes(candidates: Sequence[Candidate], results: dict, pairs: dict) -> Optional[dict]:
    """The fixes of the combined run: per fix id, the measured candidate with the largest gain.

    None when fewer than two fix ids measured a gain (the combined run would repeat one of them).
    """
    best: dict[str, Candidate] = {}
    for c in candidates:
        fix = REGISTRY.get(c.fix_id)
        if fix is not None and fix.memory:
            continue  # a memory fix trades time for memory: not part of the fastest combination
        result = results.get(c.key)
        if not is_measured_gain(result, pairs.get(c.key, ())):
            continue
        held = best.get(c.fix_id)
        if held is None or result.median > results[held.key].median:
            best[c.fix_id] = c
    if len(best) < 2:
        return None
    fixes: dict = {}
    for c in best.values():
        fixes.update(c.fixes)
    return fixes


def _extra_seconds(fixes: dict) -> float:
    """The longest extra allowance any of ``fixes`` asks for (compiling needs its warm-up)."""
    from .fixes import get

    return max((getattr(get(fix_id), "trial_seconds", 0.0) for fix_id in fixes), default=0.0)


def _slug(label: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in label).strip("-") or "trial"
