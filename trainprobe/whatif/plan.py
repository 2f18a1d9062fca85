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
from dataclasses import dataclass, field
from typing import Optional

from ..findings import Diagnosis, Finding, Verification
from ..record import RunRecord
from .fixes import INJECTABLE, NOT_INJECTED

__all__ = [
    "Candidate",
    "Schedule",
    "plan_candidates",
    "num_workers_sweep",
    "hand_instructions",
    "schedule",
    "NUMERICS_FIXES",
    "GPU_ONLY_FIXES",
]

NUMERICS_FIXES = frozenset({"amp_bf16", "amp_fp16", "tf32", "compile"})  # they change the math a little
GPU_ONLY_FIXES = {
    "pin_memory": "pinned memory only speeds up copies to a GPU, and this run used none",
    "cudnn_benchmark": "cudnn only runs on a GPU, and this run used none",
    "tf32": "TF32 is a GPU number format (Ampere and newer), and this run used no GPU",
}
MAX_ROUNDS = 5  # pairs per candidate at most; fast trials get more, for a tighter test
COMBINED_PAIRS = 2  # baseline/combined pairs for the run with every helpful fix

# How to try by hand what cannot be injected, by rule id (the rule's advice says what; this says how to test).
_BY_HAND = {
    "storage-bound-input": "trainprobe cannot move your data; copy the data set to local SSD or /dev/shm and "
                           "run `trainprobe diagnose` on both copies to compare steps/s",
    "workers-decode-bound": "image decoding speed depends on the installed Pillow (pillow-SIMD) or on "
                            "decoding on the GPU (torchvision.io.decode_jpeg); install it in a separate "
                            "environment and run `trainprobe diagnose` there to compare",
    "workers-augment-bound": "move the augmentations to the GPU or make them cheaper in the script, then "
                             "compare two `trainprobe diagnose` runs",
    "small-batch-underused-gpu": "a larger batch changes the training itself (learning rate, steps per "
                                 "epoch); edit the batch size and compare samples/s of two "
                                 "`trainprobe diagnose` runs",
    "data-parallel-instead-of-ddp": "DistributedDataParallel needs a launcher (torchrun) and one process per "
                                    "GPU; convert the script and compare with `trainprobe diagnose`",
    "single-gpu-of-many": "using more GPUs needs DistributedDataParallel and torchrun; convert the script "
                          "and compare with `trainprobe diagnose`",
    "amp-not-used": "add torch.autocast(dtype=torch.float16) around the forward and loss, with "
                    "torch.amp.GradScaler for backward and step, then compare two `trainprobe diagnose` runs",
}
_GENERIC_BY_HAND = ("trainprobe cannot apply this fix at run time: apply the advice to a copy of the script "
                    "and compare steps/s of `trainprobe diagnose` on both")


@dataclass(frozen=True)
class Candidate:
    """One configuration to measure against the baseline."""

    key: str  # "num_workers=2", "set_to_none", "combined"
    fix_id: str
    fixes: dict = field(default_factory=dict)  # what the child applies

    @property
    def numerics(self) -> bool:
        return any(f in NUMERICS_FIXES for f in self.fixes)


@dataclass(frozen=True)
class Schedule:
    """Trials in the order to run them: ``None`` is a baseline, else a candidate index."""

    order: tuple[Optional[int], ...]
    rounds: int
    candidates: int  # how many candidates fit (the first ones)


def hand_instructions(finding: Finding) -> str:
    if finding.fix_id in NOT_INJECTED:
        return f"not injectable: {NOT_INJECTED[finding.fix_id]}; " + _BY_HAND.get(finding.id, _GENERIC_BY_HAND)
    return "not injectable: " + _BY_HAND.get(finding.id, _GENERIC_BY_HAND)


def _fact(diagnosis: Diagnosis, name: str):
    fact = diagnosis.fact(name)
    return fact.value if fact is not None else None


def _training_loader(record: RunRecord):
    loaders = record.settings.dataloaders
    used = [d for d in loaders if d.used_in_training]
    return (used or list(loaders) or [None])[0]


def usable_cores(record: RunRecord) -> int:
    env = record.environment
    return int(env.usable_cores or env.logical_cores or os.cpu_count() or 1)


def num_workers_sweep(suggested: int, current: int, cores: int) -> tuple[int, ...]:
    """Half, the suggestion and double, capped by the usable cores, without the value already in use."""
    suggested = max(1, int(suggested))
    values = {max(1, suggested // 2), suggested, suggested * 2}
    kept = sorted(v for v in values if v <= max(1, cores) and v != current)
    return tuple(kept) or ((suggested,) if suggested != current else ())


def plan_candidates(record: RunRecord, diagnosis: Diagnosis
                    ) -> tuple[list[Candidate], dict[str, Verification], dict[str, list[str]]]:
    """Candidates to measure, verifications already decided (by finding id), and which candidates
    answer which finding (finding id -> candidate keys)."""
    candidates: dict[str, Candidate] = {}
    decided: dict[str, Verification] = {}
    answers: dict[str, list[str]] = {}
    loader = _training_loader(record)
    workers = loader.num_workers if loader is not None else 0
    for finding in diagnosis.findings:
        fix = finding.fix_id or None
        if fix is None or fix in NOT_INJECTED or fix not in INJECTABLE:
            decided[finding.id] = Verification(status="not_injectable", text=hand_instructions(finding))
            continue
        if fix in GPU_ONLY_FIXES and not record.settings.cuda_used:
            decided[finding.id] = Verification(status="not_run", text=f"not tried: {GPU_ONLY_FIXES[fix]}")
            continue
        if fix in ("persistent_workers", "prefetch_factor") and workers == 0 and loader is not None:
            decided[finding.id] = Verification(
                status="not_run", text=f"not tried: {fix} needs DataLoader workers (num_workers > 0)")
            continue
        keys = []
        for candidate in _candidates_for(fix, record, diagnosis, loader):
            candidates.setdefault(candidate.key, candidate)
            keys.append(candidate.key)
        if keys:
            answers[finding.id] = keys
        else:
            decided[finding.id] = Verification(status="not_run", text="not tried: no other value to try here")
    return list(candidates.values()), decided, answers


def _candidates_for(fix: str, record: RunRecord, diagnosis: Diagnosis, loader) -> list[Candidate]:
    if fix == "num_workers":
        suggested = _fact(diagnosis, "suggested_num_workers") or max(1, usable_cores(record) - 1)
        current = loader.num_workers if loader is not None else 0
        return [Candidate(f"num_workers={n}", fix, {"num_workers": n})
                for n in num_workers_sweep(int(suggested), current, usable_cores(record))]
    if fix == "prefetch_factor":
        current = (loader.prefetch_factor if loader is not None else None) or 2
        value = int(_fact(diagnosis, "suggested_prefetch_factor") or max(4, 2 * current))
        return [Candidate(f"prefetch_factor={value}", fix, {"prefetch_factor": value})]
    return [Candidate(fix, fix, {fix: True})]


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
