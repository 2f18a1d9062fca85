"""The ranks of a job, side by side: each one's step, its time in collectives, and the straggler.

**Collectives, waiting and transfer.** Every rank times each collective from its own side, entry
to exit (job/rank.py). A collective ends on every rank at about the same moment, when the last
rank has arrived and the data has moved, so the same call (the n-th of its kind on every rank)
lasts longest on the rank that arrived first. The shortest of its durations is the transfer (the
last arrival waited for nobody); each rank's duration beyond that is its wait for the slowest
rank. This needs no common clock, so it holds across nodes.

**The straggler** is the rank the others wait for: the one with the least waiting, when the
others wait at least ``STRAGGLER_MIN_WAIT`` of the step more than it does (in a balanced job
every rank waits now and then for another). Its cause is the step phase (data wait,
forward, backward, optimizer, the loop's own code, evaluation) where it spends the most time more
than the other ranks do, each rank's phases taken without its waiting in collectives.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Optional, Sequence

from .. import display
from ..facts.window import MIN_STEADY_STEPS
from ..record import PHASE_PROFILED, PHASE_STEADY, DdpSettings, JobSummary, RankSummary
from .assemble import RankRun

__all__ = ["PHASES", "CAUSES", "analyze_job", "STRAGGLER_MIN_WAIT"]

STRAGGLER_MIN_WAIT = 0.15  # the other ranks wait this share of the step more than the straggler does
PHASES = ("data_wait", "h2d", "forward", "backward", "optimizer", "eval", "other")
CAUSES = {
    "data_wait": ("input", "waiting for data"),
    "h2d": ("input", "copying batches to the device"),
    "forward": ("compute", "in the forward pass"),
    "backward": ("compute", "in the backward pass"),
    "optimizer": ("compute", "in the optimizer step"),
    "eval": ("host", "in evaluation"),
    "other": ("host", "in the loop's own code (logging, checkpoints, metrics)"),
}


def _measured(record) -> list:
    """The steps the figures are taken from: steady (and profiled) training steps."""
    steps = [s for s in record.steps if s.phase in (PHASE_STEADY, PHASE_PROFILED) and not s.validation]
    return steps or [s for s in record.steps if not s.validation][1:]


def _median(values: Sequence[float]) -> Optional[float]:
    return statistics.median(values) if values else None


def _collective_split(runs: Sequence[RankRun]) -> dict[int, dict]:
    """Per rank: per step index, seconds in collectives, waiting, transfer, and the waiting by phase."""
    by_call: dict[tuple[str, int], dict[int, object]] = defaultdict(dict)
    for run in runs:
        count: dict[str, int] = defaultdict(int)
        for c in run.collectives:
            by_call[(c.kind, count[c.kind])][run.rank] = c
            count[c.kind] += 1
    out: dict[int, dict] = {run.rank: {"time": defaultdict(float), "wait": defaultdict(float),
                                       "transfer": defaultdict(float), "wait_by_phase": defaultdict(float)}
                            for run in runs}
    everyone = len(runs)
    for call in by_call.values():
        if len(call) < everyone:
            continue  # a call some rank never made (it ended first): nobody's transfer is known
        transfer = min(c.duration for c in call.values())  # type: ignore[attr-defined]
        for rank, c in call.items():
            mine = out[rank]
            mine["time"][c.step] += c.duration  # type: ignore[attr-defined]
            mine["transfer"][c.step] += transfer  # type: ignore[attr-defined]
            wait = c.duration - transfer  # type: ignore[attr-defined]
            mine["wait"][c.step] += wait  # type: ignore[attr-defined]
            mine["wait_by_phase"][(c.step, c.phase or "other")] += wait  # type: ignore[attr-defined]
    return out


def _rank_row(run: RankRun, split: dict) -> tuple[RankSummary, dict[str, float]]:
    """The rank's table row, and its phases without its waiting in collectives (per step, median)."""
    steps = _measured(run.record)
    indices = {s.index for s in steps}
    phases = {p: _median([getattr(s, p) for s in steps]) or 0.0 for p in PHASES}
    own = {}
    for p in PHASES:
        values = [max(0.0, getattr(s, p) - split["wait_by_phase"].get((s.index, p), 0.0)) for s in steps]
        own[p] = _median(values) or 0.0
    own["_steps"] = [s.index for s in steps]  # type: ignore[assignment]
    per_step = lambda series: (sum(v for k, v in series.items() if k in indices) / len(steps)) if steps else None
    outcome = run.record.outcome
    error = None
    if outcome.status == "failed" and outcome.exception_type:
        message = (outcome.exception_message or "").strip().splitlines()
        error = outcome.exception_type + (f": {_clip(message[0], 160)}" if message else "")
    loaders = [l for l in run.record.settings.dataloaders if l.used_in_training] or list(run.record.settings.dataloaders)
    row = RankSummary(
        rank=run.rank, files=(str(run.folder / "run.json"),), steps=len(run.record.steps),
        step_time=_median([s.duration for s in steps]),
        data_wait_share=(phases["data_wait"] / _median([s.duration for s in steps])) if steps and
        _median([s.duration for s in steps]) else None,
        status=outcome.status, error=error, node=str(run.folder.parent),
        phases={p: v for p, v in phases.items()},
        collective_time=per_step(split["time"]) if run.collectives else None,
        collective_wait=per_step(split["wait"]) if run.collectives else None,
        collective_transfer=per_step(split["transfer"]) if run.collectives else None,
        batches=sum(l.batches for l in loaders) if loaders else None,
    )
    return row, own


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _why(slow: RankSummary, cause: str, excess: float, mine: float, theirs: float, waited: Optional[float],
         others: int) -> str:
    what = CAUSES.get(cause, ("", cause))[1]
    text = (f"rank {slow.rank} spends {display.seconds(mine)} per step {what}, against "
            f"{display.seconds(theirs)} on the other rank{'s' if others > 1 else ''}")
    if waited:
        text += (f"; the other rank{'s' if others > 1 else ''} wait{'' if others > 1 else 's'} "
                 f"{display.seconds(waited)} per step for it in collectives")
    return text


def analyze_job(runs: Sequence[RankRun], command_line: str = "", nodes: Sequence[str] = ()
                ) -> tuple[tuple[RankSummary, ...], JobSummary]:
    """Every rank's row, and the job's summary: straggler and cause, collectives, DDP, failures."""
    splits = _collective_split(runs)
    rows, own = [], {}
    for run in runs:
        row, phases = _rank_row(run, splits[run.rank])
        rows.append(row)
        own[run.rank] = phases
    timed = [r for r in rows if r.step_time]
    step_time = _median([r.step_time for r in timed]) if timed else None  # type: ignore[misc]
    straggler, cause, excess, why, waited_for = _straggler(rows, own, step_time)
    rows = [_mark(r, straggler, why) for r in rows]
    failed = [r for r in rows if r.status == "failed"]
    failed_run = _first_failed(runs)
    waits = [r.collective_wait for r in rows if r.collective_wait is not None]
    mean = lambda xs: sum(xs) / len(xs) if xs else None
    rank0 = next((r for r in rows if r.rank == 0), None)
    others = [r for r in rows if r.rank != 0 and r.step_time]
    rank0_extra = None
    if rank0 is not None and rank0.step_time and others:
        rank0_extra = own[0]["other"] + own[0]["eval"] - mean([own[r.rank]["other"] + own[r.rank]["eval"] for r in others])
    samplers = [_uses_distributed_sampler(run) for run in runs]
    ddp = next((run.ddp for run in runs if run.ddp), {})
    job = JobSummary(
        launcher="torchrun", command_line=command_line,
        world_size=next((run.info.get("world_size") for run in runs if run.info.get("world_size")), len(runs)),
        nodes=tuple(nodes), backend=ddp.get("backend") or _backend(runs), ddp=_ddp(ddp, runs),
        straggler=straggler, straggler_cause=cause, straggler_excess=excess, straggler_why=why,
        step_time=step_time,
        collective_time=mean([r.collective_time for r in rows if r.collective_time is not None]),
        collective_wait=waited_for if straggler is not None else mean(waits), collective_transfer=mean(
            [r.collective_transfer for r in rows if r.collective_transfer is not None]),
        rank0_extra=rank0_extra,
        failed_rank=failed_run.rank if failed_run else (failed[0].rank if failed else None),
        failed_error=next(((r.error or f"{r.status}: {failed_run.record.outcome.reason}") for r in rows
                           if failed_run and r.rank == failed_run.rank), None),
        distributed_sampler=None if any(s is None for s in samplers) else all(samplers),
        batches_per_rank=tuple(r.batches or 0 for r in rows),
    )
    return tuple(rows), job


def _first_failed(runs: Sequence[RankRun]) -> Optional[RankRun]:
    """The rank whose failure came first: it raised, or ended without a word ("the rank ended first
    without saying how"); a rank torchrun ended after another's failure is not it."""
    down = [run for run in runs if run.record.outcome.status == "failed" or (
        run.record.outcome.status == "killed" and "ended first" in run.record.outcome.reason)]
    return min(down, key=lambda run: run.record.outcome.duration, default=None)


def _straggler(rows: list[RankSummary], own: dict, step_time: Optional[float]):
    timed = [r for r in rows if r.step_time]
    if len(timed) < 2 or not step_time or any(len(own[r.rank]["_steps"]) < MIN_STEADY_STEPS for r in timed):
        return None, None, None, None, None  # too few steps on some rank to tell noise from a straggler
    waited = [r for r in timed if r.collective_wait is not None]
    if len(waited) == len(timed):
        slow = min(waited, key=lambda r: r.collective_wait or 0.0)
        rest = [r for r in waited if r is not slow]
        # In a balanced job every rank waits now and then for another: only the others' waiting
        # beyond the straggler's own is waiting for it.
        waited_for = sum(r.collective_wait or 0.0 for r in rest) / len(rest) - (slow.collective_wait or 0.0)
        if waited_for < STRAGGLER_MIN_WAIT * step_time:
            return None, None, None, None, None  # balanced: nobody waits much for anybody
    else:  # no collectives seen: the slowest step
        slow = max(timed, key=lambda r: r.step_time or 0.0)
        rest = [r for r in timed if r is not slow]
        waited_for = None
    best, excess = None, 0.0
    for phase in PHASES:
        if phase.startswith("_"):
            continue
        extra = own[slow.rank][phase] - sum(own[r.rank][phase] for r in rest) / len(rest)
        if extra > excess:
            best, excess = phase, extra
    if best is None:
        return slow.rank, None, None, f"rank {slow.rank} is the one the others wait for", waited_for
    theirs = sum(own[r.rank][best] for r in rest) / len(rest)
    why = _why(slow, best, excess, own[slow.rank][best], theirs, waited_for, len(rest))
    return slow.rank, best, excess, why, waited_for


def _mark(row: RankSummary, straggler: Optional[int], why: Optional[str]) -> RankSummary:
    from dataclasses import replace

    if row.rank == straggler:
        return replace(row, slowest=True, why_slowest=why)
    return row


def _uses_distributed_sampler(run: RankRun) -> Optional[bool]:
    loaders = [l for l in run.record.settings.dataloaders if l.used_in_training]
    if not loaders:
        return None
    return all("DistributedSampler" in (l.sampler_type or "") for l in loaders if not l.iterable)


def _backend(runs: Sequence[RankRun]) -> Optional[str]:
    for run in runs:
        value = run.ddp.get("backend")
        if value:
            return str(value)
    return None


def _ddp(ddp: dict, runs: Sequence[RankRun]) -> Optional[DdpSettings]:
    if not ddp:
        return None
    unused = ddp.get("unused_parameter_bytes")
    costs = [run.ddp.get("post_forward_time") for run in runs if run.ddp.get("post_forward_time") is not None]
    return DdpSettings(
        bucket_cap_mb=ddp.get("bucket_cap_mb"), gradient_as_bucket_view=ddp.get("gradient_as_bucket_view"),
        static_graph=ddp.get("static_graph"), find_unused_parameters=ddp.get("find_unused_parameters"),
        broadcast_buffers=ddp.get("broadcast_buffers"),
        unused_parameter_bytes=None if unused is None else int(unused),
        post_forward_time=max(costs) if costs else None, parameters=ddp.get("parameters"))
