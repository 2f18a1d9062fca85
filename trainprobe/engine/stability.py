"""How firmly the measured steps support the verdict: a bootstrap over the steady steps.

One run measures a few dozen steps on a machine whose speed wanders; a share
close to a rule's threshold can fall on either side in the next run. So the
verdict is made again on resamples of the steady steps (drawn with
replacement, ``RESAMPLES`` times, with a fixed seed so a report is the same
when it is rendered again): the share of resamples that reach the same
category is the verdict's ``agreement``, and the 2.5th and 97.5th
percentiles of the verdict category's share of the step are its interval.
Below ``BORDERLINE`` agreement the verdict is called borderline, and the
category the other resamples reached is named, instead of letting it flip
between runs.

With fewer than ``MIN_STEADY_STEPS`` steps (a short run), the same
resamples decide whether there is a verdict at all: it stands only when it is
decisive, reached by at least ``DECISIVE`` of them. That is the deciding
share's interval lying on the verdict's side of its threshold: each resample
names its verdict by comparing its own shares with the thresholds (a
finding's gain against 5% of the step, a class against 30%), so a verdict
that 95% of the resamples reach is one whose deciding share stayed on the
same side in 95% of them. Two steps (``FEWEST_ALIKE_STEPS``) give three distinct
resamples, each step alone and the pair: their verdict must hold on all of them, by a wide margin
(engine/verdict.py). Below two there is no bootstrap.

Only the steps are resampled: the samplers' series and the profiles describe
the same window either way. A short run of steps split into micro-batches
(facts/window.py: ``steady_micro_batches``) is resampled within each step
(a stratified bootstrap): each step keeps its place and is the sum of as
many of its own micro-batches, drawn with replacement, so every resample
holds as many micro-batches as the run, and they count toward
``FEWEST_STEPS``.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Callable, Optional

from ..facts import recompute_step_facts
from ..facts.window import FEWEST_ALIKE_STEPS, short_run_split, steady_micro_batches, steady_steps
from ..findings import Finding, Verdict
from ..record import MICRO_PARTS, PHASE_STEADY, MicroBatch, RunRecord, Step

__all__ = ["RESAMPLES", "DECISIVE", "Stability", "stability"]

RESAMPLES = 100
DECISIVE = 0.95  # a verdict from fewer than MIN_STEADY_STEPS steps stands when this share of resamples reach it
_SEED = 20261123


@dataclasses.dataclass(frozen=True)
class Stability:
    agreement: float  # share of resamples that reached the same category
    alternative: Optional[str]  # the category most other resamples reached
    share_low: Optional[float]  # 95% interval of the verdict category's share of the step
    share_high: Optional[float]
    gains: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)  # finding id -> 95% interval
    fired: dict[str, float] = dataclasses.field(default_factory=dict)  # finding id -> share of resamples it fired in


def _resampler(record: RunRecord) -> Callable[[random.Random], RunRecord]:
    """Draws of ``record`` with its steady steps resampled (the steps made ready once: a diagnosis
    draws a hundred)."""
    steady = steady_steps(record)
    # Keep every other step (warm-up, validation, the windows) so facts about them do not move;
    # the drawn steps become the steady window. Warm-up steps counted as steady in a short run
    # (window.borrowed_warmup) are among the drawn, not kept a second time.
    chosen = set(map(id, steady))
    kept = [s for s in record.steps if s.phase != PHASE_STEADY and id(s) not in chosen]
    ready = [dataclasses.replace(s, phase=PHASE_STEADY, epoch_start=False) for s in steady]
    split = short_run_split(record, steady)
    if split is not None:
        return _micro_resampler(record, kept, ready, split)

    def draw(rng: random.Random) -> RunRecord:
        return dataclasses.replace(record, steps=tuple(kept + [rng.choice(ready) for _ in ready]))
    return draw


def _micro_resampler(record: RunRecord, kept: list[Step], ready: list[Step],
                     split: tuple[tuple[MicroBatch, ...], ...]) -> Callable[[random.Random], RunRecord]:
    """Each step in its place, the sum of as many of its own micro-batches drawn with replacement (its counts,
    batch and learning rate unchanged): the resample is split as the run was, with as many micro-batches.
    (Drawing the steps too would change their number: ultralytics' 2 steps, one of 2 micro-batches and one
    not split, would give resamples of 2, 3 or 4, and those of 2 would have too few to judge from.)"""
    pairs = list(zip(ready, split))

    def draw(rng: random.Random) -> RunRecord:
        steps, micros = [], []
        for step, parts in pairs:
            drawn = [rng.choice(parts) for _ in parts]
            sums = {name: sum(getattr(m, name) for m in drawn) for name in MICRO_PARTS}
            steps.append(dataclasses.replace(step, **sums))
            # A step not split is its own one micro-batch (facts/window.py): kept as an event too.
            micros.extend(dataclasses.replace(m, step=step.index) for m in drawn)
        return dataclasses.replace(record, steps=tuple(kept + steps), micro_batches=tuple(micros))
    return draw


# What one resample decided: its verdict's category, the run's verdict category's share of its step, and
# each finding it raised with its gain (seconds per step).
_Outcome = tuple[str, float, tuple[tuple[str, float], ...]]


def _decided(facts: dict[str, object], category: str,
             decide: Callable[[dict[str, object]], tuple[Verdict, list[Finding]]],
             decided: dict[tuple, _Outcome]) -> _Outcome:
    """``decide`` on ``facts``, once per distinct set of facts: the rules and the verdict are a pure
    function of the facts, and resamples often repeat them (steps alike in every figure, or a short
    run whose few steps give few distinct draws). Rule evaluation is most of a resample's time."""
    key = tuple(facts.values())  # every fact is a plain value (facts/__init__.py), in catalog order
    try:
        known = decided.get(key)
    except TypeError:  # a value that cannot be a key: decide every time
        key, known = None, None
    if known is not None:
        return known
    again, findings = decide(facts)
    outcome = (again.category, again.breakdown.get(category, 0.0),
               tuple((f.id, f.gain.seconds_per_step or 0.0) for f in findings))
    if key is not None:
        decided[key] = outcome
    return outcome


def _percentile(values: list[float], q: float) -> Optional[float]:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(q * (len(values) - 1)))))]


def stability(record: RunRecord, values: dict[str, object], verdict: Verdict,
              decide: Callable[[dict[str, object]], tuple[Verdict, list[Finding]]]) -> Optional[Stability]:
    """The verdict's agreement over resamples of the steady steps; ``values`` are the run's facts
    and ``decide`` makes a verdict and its findings from facts (the rules and the verdict, as for the
    run itself). The findings' gains over the resamples give each gain its interval (a resample where
    a finding does not fire counts as no gain). None with too few steady steps."""
    measured = max(len(steady_steps(record)), len(steady_micro_batches(record)))
    if measured < FEWEST_ALIKE_STEPS or verdict.category == "unknown":
        return None
    rng = random.Random(_SEED)
    categories: Counter[str] = Counter()
    shares = []
    gains: dict[str, list[float]] = {}
    draw = _resampler(record)
    decided: dict[tuple, _Outcome] = {}
    for _ in range(RESAMPLES):
        facts = recompute_step_facts(draw(rng), values)
        category, share, found = _decided(facts, verdict.category, decide, decided)
        categories[category] += 1
        shares.append(share)
        for fid, seconds in found:
            gains.setdefault(fid, []).append(seconds)
    others = [(n, c) for c, n in categories.items() if c != verdict.category]
    alternative = max(others)[1] if others else None
    intervals = {}
    fired = {fid: len(seen) / RESAMPLES for fid, seen in gains.items()}
    for fid, seen in gains.items():
        seen += [0.0] * (RESAMPLES - len(seen))
        intervals[fid] = (_percentile(seen, 0.025), _percentile(seen, 0.975))
    return Stability(agreement=categories[verdict.category] / RESAMPLES, alternative=alternative,
                     share_low=_percentile(shares, 0.025), share_high=_percentile(shares, 0.975),
                     gains=intervals, fired=fired)
