"""Several ranks' traces -> one job: a table of every rank, and the slowest rank with why.

Each rank is diagnosed on its own record; the table holds each one's facts and verdict as they
came out. The slowest rank is the one with the longest mean step; why it is slowest is the part of
its GPU's step (busy computing, copying, communicating, or idle for a cause: facts/device.py) where
it spends the most time more than the other ranks do on average.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Sequence

from .. import display
from ..findings import Diagnosis
from ..record import RankSummary, RunRecord

__all__ = ["rank_table"]

# The device's step, fact by fact (facts/device.py): what a rank spends its step on.
_PARTS = {
    "device_compute_share": "computing",
    "device_copy_share": "copying memory",
    "exposed_communication_share": "in communication nothing overlaps",
    "gpu_idle_data_share": "idle while its host fetched data",
    "gpu_idle_sync_share": "idle while its host waited in syncs",
    "gpu_idle_host_share": "idle while its host ran its own code",
    "gpu_idle_launch_share": "idle in the launch path",
    "gpu_idle_dependency_share": "idle with work queued behind other work (a peer, another stream)",
}


def _fact(diagnosis: Diagnosis, name: str) -> Optional[float]:
    fact = diagnosis.fact(name)
    value = fact.value if fact is not None else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _why(slow: RankSummary, others: Sequence[RankSummary]) -> Optional[str]:
    if slow.step_time is None or not others:
        return None
    best, excess = None, 0.0
    for category, share in slow.breakdown.items():
        mine = share * slow.step_time
        theirs = [o.breakdown.get(category, 0.0) * o.step_time for o in others if o.step_time]
        if not theirs:
            continue
        extra = mine - sum(theirs) / len(theirs)
        if extra > excess:
            best, excess = category, extra
    if best is None:
        return None
    mean_other = sum(o.step_time for o in others if o.step_time) / max(1, sum(1 for o in others if o.step_time))
    return (f"its steps take {display.seconds(slow.step_time)} against {display.seconds(mean_other)} on the other "
            f"rank{'s' if len(others) > 1 else ''}; its GPU spends {display.seconds(excess)} more per step "
            f"{_PARTS.get(best, best)} than theirs do on average")


def rank_table(runs: Sequence[tuple[Optional[int], Sequence[str], RunRecord, Diagnosis]]) -> tuple[RankSummary, ...]:
    """``runs``: (rank, files, record, diagnosis) per rank."""
    rows = []
    for rank, files, record, diagnosis in runs:
        rows.append(RankSummary(
            rank=rank, files=tuple(str(f) for f in files), steps=len(record.steps),
            step_time=_fact(diagnosis, "step_time"), gpu_idle_share=_fact(diagnosis, "gpu_idle_share"),
            exposed_communication_share=_fact(diagnosis, "exposed_communication_share"),
            data_wait_share=_fact(diagnosis, "data_wait_share"),
            breakdown={name: _fact(diagnosis, name) or 0.0 for name in _PARTS},
            verdict=diagnosis.verdict.category, headline=diagnosis.verdict.headline))
    timed = [r for r in rows if r.step_time is not None]
    if len(rows) < 2 or not timed:
        return tuple(rows)
    slowest = max(timed, key=lambda r: r.step_time or 0.0)
    others = [r for r in timed if r is not slowest]
    out = []
    for row in rows:
        if row is slowest:
            row = replace(row, slowest=True, why_slowest=_why(row, others))
        out.append(row)
    return tuple(out)
