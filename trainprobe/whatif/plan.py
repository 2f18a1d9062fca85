"""Which fixes to try, with which values, and how many trials the budget allows.

Every finding whose rule names a ``fix_id`` that the child can inject becomes
a candidate (``num_workers`` becomes a small sweep around the suggestion);
findings without one get a ``not_injectable`` verification that says how to
try the fix by hand. The trial schedule alternates the baseline and the
candidates in rounds: ``B, F1, F2, … Fk`` then ``B, Fk, … F1`` (the order
reversed each round so that drift on the machine falls evenly), so each
candidate's pairs share a baseline run next to them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from ..facts.input import training_loader
from ..findings import Diagnosis, Finding, Verification
from ..record import RunRecord
from .fixes import GENERIC_BY_HAND, REGISTRY, Candidate, PlanContext

__all__ = [
    "Candidate",
    "Schedule",
    "plan_candidates",
    "hand_instructions",
    "schedule",
    "changes_numerics",
    "usable_cores",
    "MAX_ROUNDS",
    "COMBINED_PAIRS",
]

MAX_ROUNDS = 5  # pairs per candidate at most; fast trials get more, for a tighter test
COMBINED_PAIRS = 2  # baseline/combined pairs for the run with every helpful fix


@dataclass(frozen=True)
class Schedule:
    """Trials in the order to run them: ``None`` is a baseline, else a candidate index."""

    order: tuple[Optional[int], ...]
    rounds: int
    candidates: int  # how many candidates fit (the first ones)


def hand_instructions(finding: Finding) -> str:
    """How to try a fix trainprobe cannot apply at run time, from the fix's own module."""
    fix = REGISTRY.get(finding.fix_id or "")
    if fix is None:
        return "not injectable: " + GENERIC_BY_HAND
    why = f"{fix.not_injected_because}; " if fix.not_injected_because else ""
    return f"not injectable: {why}{fix.by_hand}"


def usable_cores(record: RunRecord) -> int:
    env = record.environment
    return int(env.usable_cores or env.logical_cores or os.cpu_count() or 1)


def plan_candidates(record: RunRecord, diagnosis: Diagnosis
                    ) -> tuple[list[Candidate], dict[str, Verification], dict[str, list[str]]]:
    """Candidates to measure, verifications already decided (by finding id), and which candidates
    answer which finding (finding id -> candidate keys)."""
    candidates: dict[str, Candidate] = {}
    decided: dict[str, Verification] = {}
    answers: dict[str, list[str]] = {}
    loader = training_loader(record)  # the loader the findings are about: the same one, never validation's
    ctx = PlanContext(num_workers=loader.num_workers if loader is not None else 0,
                      prefetch_factor=loader.prefetch_factor if loader is not None else None,
                      usable_cores=usable_cores(record), facts=diagnosis.fact_values())
    for finding in diagnosis.findings:
        fix = REGISTRY.get(finding.fix_id or "")
        if fix is None or not fix.injectable:
            decided[finding.id] = Verification(status="not_injectable", text=hand_instructions(finding))
            continue
        if fix.gpu_only and not record.settings.cuda_used:
            decided[finding.id] = Verification(status="not_run", text=f"not tried: {fix.gpu_only}")
            continue
        if fix.needs_workers and ctx.num_workers == 0 and loader is not None:
            decided[finding.id] = Verification(
                status="not_run", text=f"not tried: {fix.id} needs DataLoader workers (num_workers > 0)")
            continue
        keys = []
        companions = [REGISTRY[c] for c in fix.companions if c in REGISTRY and REGISTRY[c].injectable]
        for candidate in [c for f in (fix, *companions) for c in f.candidates(ctx)]:
            candidates.setdefault(candidate.key, candidate)
            keys.append(candidate.key)
        if keys:
            answers[finding.id] = keys
        else:
            decided[finding.id] = Verification(status="not_run", text=f"not tried: {fix.untried}")
    return list(candidates.values()), decided, answers


def changes_numerics(candidate: Candidate) -> bool:
    """Whether a candidate's fixes change the math a little (the loss is shown beside the speed)."""
    return any(REGISTRY[f].numerics for f in candidate.fixes if f in REGISTRY)


def schedule(candidates: int, trial_cost: float, remaining: float, max_rounds: int = MAX_ROUNDS,
             combined: bool = True) -> Schedule:
    """Plan trials after the first baseline (already run) within ``remaining`` seconds.

    Priority: one round of every candidate that fits; then a second round (two
    pairs give an interval); then room for two combined pairs when a combined
    run is possible; then a third round. ``order`` lists what follows the
    first baseline.
    """
    slots = int(remaining // trial_cost) if trial_cost > 0 else 0
    fit = min(candidates, slots)
    if fit <= 0:
        return Schedule(order=(), rounds=0, candidates=0)
    order: list[Optional[int]] = list(range(fit))
    slots -= fit
    rounds = 1
    while rounds < max_rounds:
        reserve = COMBINED_PAIRS * 2 if combined and fit > 1 and rounds >= 2 else 0
        if slots - reserve < fit + 1:
            break
        forward = list(range(fit))
        order += [None] + (forward[::-1] if rounds % 2 else forward)
        slots -= fit + 1
        rounds += 1
    return Schedule(order=tuple(order), rounds=rounds, candidates=fit)
