"""A job of several ranks (record_job.JobRecord): the straggler, the collectives, DDP's settings,
work on rank 0 alone, uneven data. Unknown (None) on a single run.

**One window, one base.** Each rank's figures are means over its own steady steps
(facts/window.py, the one definition of the measured window), and every share is of one base,
``job_step_time``: the slowest rank's mean steady step, the pace the whole job runs at. A
rank's waiting in collectives is counted on the same steps as its step time, and never more than
the step it happened in, so no share exceeds the step, and a gain made of the waiting never
exceeds what removing it allows.

**Collectives, waiting and transfer.** Every rank times each collective from its own side, entry
to exit (probe/ranks.py). A collective ends on every rank at about the same moment, when the last
rank has arrived and the data has moved, so the same call (the n-th of its kind on every rank)
lasts longest on the rank that arrived first. The shortest of its durations is the transfer (the
last arrival waited for nobody); each rank's duration beyond that is its wait for the slowest rank.
This needs no common clock, so it holds across nodes.

**The straggler** is the rank the others wait for: the one with the least waiting, when the others
wait at least ``STRAGGLER_MIN_WAIT`` of the step more than it does (in a balanced job every rank
waits now and then for another). Without collectives timed on every rank (trainers that share
nothing, traces) no rank waits for another that anyone measured: there is no straggler, and the
table marks the rank with the longest mean step as the slowest. The straggler's (or the slowest
rank's) cause is the part of its step where it spends the most beyond the other ranks' mean, each
rank's waiting in collectives taken out: a step phase, or on a trace the GPU's step (facts/device.py).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from ..figures import JobFigures, RankFigures
from ..record import DdpSettings, RunRecord
from ..record_job import JobRecord, RankRecord
from ..vocabulary import PHASE_NAMES
from . import device
from ._stats import ratio
from .window import MIN_STEADY_STEPS, mean_step_time, steady_steps

__all__ = ["FAMILY", "FACTS", "compute", "job_figures", "first_failed", "STRAGGLER_MIN_WAIT"]

FAMILY = "job"

STRAGGLER_MIN_WAIT = 0.15  # the other ranks wait this share of the step more than the straggler does

# A trace's GPU step, part by part (facts/device.py): where a rank read from traces spends its step.
DEVICE_PARTS = ("device_compute_share", "device_copy_share", "exposed_communication_share", "gpu_idle_data_share",
                "gpu_idle_sync_share", "gpu_idle_host_share", "gpu_idle_launch_share",
                "gpu_idle_dependency_share")

FACTS = {
    "job_ranks": ("count", "Ranks in the job (torchrun, merged, trainer processes, or ranks' traces)."),
    "job_step_time": ("s", "The job's step: the slowest rank's mean steady step, the pace every rank keeps. The "
                      "base of this family's shares."),
    "distributed_backend": ("text", "The process group's backend (gloo, nccl), read from DDP's group."),
    "straggler_rank": ("count", "The rank the others wait for in collectives (None when no rank waits much "
                       "for another, or no collectives were timed)."),
    "straggler_cause": ("text", "The step phase where the straggler spends the most time more than the other "
                        "ranks: data_wait, h2d, forward, backward, optimizer, eval, debug or other."),
    "straggler_excess": ("s", "Seconds per step the straggler spends in that phase beyond the other ranks' mean."),
    "straggler_data_wait": ("s", "The straggler's data wait per steady step (mean)."),
    "straggler_host_work": ("s", "The straggler's own loop code and evaluation per steady step (mean)."),
    "collective_share": ("share", "Share of the step the ranks spend inside collectives (all-reduce, "
                         "broadcast, barrier, DDP's gradient all-reduce), mean over ranks."),
    "collective_wait_share": ("share", "Share of the step the other ranks spend in collectives waiting for the "
                              "straggler, beyond its own waiting (without a straggler: every rank's waiting, "
                              "mean)."),
    "collective_wait_per_step": ("s", "Seconds per step of that waiting."),
    "collective_transfer_share": ("share", "Share of the step in the collectives' transfer itself (the last "
                                  "rank to arrive waits for nobody), mean over ranks."),
    "rank0_extra_per_step": ("s", "Seconds per step rank 0 spends in its loop's own code and evaluation beyond "
                             "the other ranks' mean: work on rank 0 alone (logging, checkpoints, evaluation)."),
    "rank0_extra_share": ("share", "That work's share of the step."),
    "ddp_find_unused_parameters": ("bool", "DDP was built with find_unused_parameters=True."),
    "ddp_unused_parameter_bytes": ("bytes", "Bytes of parameters DDP found unused (got no gradient), by "
                                   "DDP's own count."),
    "ddp_post_forward_per_step": ("s", "Seconds per forward DDP spent after the forward (with "
                                  "find_unused_parameters=True, the search of the autograd graph for unused "
                                  "parameters), measured."),
    "ddp_post_forward_share": ("share", "That time's share of the step."),
    "ddp_static_graph": ("bool", "DDP was built with static_graph=True."),
    "ddp_gradient_as_bucket_view": ("bool", "DDP was built with gradient_as_bucket_view=True."),
    "ddp_bucket_cap_mb": ("count", "DDP's bucket size, MB."),
    "ddp_broadcast_buffers": ("bool", "DDP broadcasts the module's buffers from rank 0 before every forward."),
    "distributed_sampler_missing": ("bool", "A job of several ranks trained on a loader without a "
                                    "DistributedSampler: every rank reads the whole dataset."),
    "batches_per_rank_spread": ("share", "(most - fewest) / most training batches fetched across the ranks."),
    "failed_rank": ("count", "The rank that failed first (None when none did)."),
    "failed_error": ("text", "How the rank that failed first ended: its exception, or how it was stopped."),
}


def compute(record: RunRecord, figures: Optional[JobFigures] = None) -> dict[str, object]:
    """The job's facts from its figures (:func:`job_figures`); none for a single run."""
    if figures is None:
        return {}
    step = figures.step_time
    straggler = figures.row(figures.straggler)
    timed = [r for r in figures.ranks if r.collective_time is not None]
    # Without a straggler, the waiting is every rank's (mean): how much of the step nobody moves.
    wait = figures.waited_for if straggler is not None else _mean([r.collective_wait for r in timed])
    ddp = figures.ddp
    post = ddp.post_forward_time if ddp else None
    batches = [r.batches for r in figures.ranks if r.batches]
    return {
        "job_ranks": len(figures.ranks),
        "job_step_time": step,
        "distributed_backend": figures.backend,
        "straggler_rank": figures.straggler,
        "straggler_cause": figures.cause if straggler is not None else None,
        "straggler_excess": figures.excess if straggler is not None else None,
        "straggler_data_wait": straggler.phases.get("data_wait") if straggler else None,
        "straggler_host_work": (straggler.phases.get("other", 0.0) + straggler.phases.get("eval", 0.0))
        if straggler else None,
        "collective_share": ratio(_mean([r.collective_time for r in timed]), step),
        "collective_wait_share": ratio(wait, step),
        "collective_wait_per_step": wait,
        "collective_transfer_share": ratio(_mean([r.collective_transfer for r in timed]), step),
        "rank0_extra_per_step": figures.rank0_extra,
        "rank0_extra_share": ratio(figures.rank0_extra, step),
        "ddp_find_unused_parameters": ddp.find_unused_parameters if ddp else None,
        "ddp_unused_parameter_bytes": ddp.unused_parameter_bytes if ddp else None,
        "ddp_post_forward_per_step": post,
        "ddp_post_forward_share": ratio(post, step),
        "ddp_static_graph": ddp.static_graph if ddp else None,
        "ddp_gradient_as_bucket_view": ddp.gradient_as_bucket_view if ddp else None,
        "ddp_bucket_cap_mb": ddp.bucket_cap_mb if ddp else None,
        "ddp_broadcast_buffers": ddp.broadcast_buffers if ddp else None,
        # Trainers a script starts each read their own data by design: only ranks of a torchrun job share a
        # dataset.
        "distributed_sampler_missing": None if figures.distributed_sampler is None or len(figures.ranks) < 2
        or figures.launcher != "torchrun" else not figures.distributed_sampler,
        "batches_per_rank_spread": (max(batches) - min(batches)) / max(batches) if len(batches) >= 2 else None,
        "failed_rank": figures.failed_rank,
        "failed_error": figures.failed_error,
    }


def _mean(values: Sequence[Optional[float]]) -> Optional[float]:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


# --- the figures: each rank's steady steps, its collectives split, the straggler ---------------------

@dataclass(frozen=True)
class _Rank:
    """One rank's steady steps and what its collectives took of each, before the job is compared."""

    source: RankRecord
    steps: tuple  # its steady steps
    time: dict  # step index -> seconds inside collectives (at most the step)
    wait: dict  # step index -> of which waiting
    transfer: dict  # step index -> of which the transfer (the last arrival's time in the call)
    wait_by_phase: dict  # (step index, phase) -> waiting inside that phase

    def per_step(self, series: dict) -> Optional[float]:
        if not self.steps or not self.source.collectives:
            return None
        return sum(series.get(s.index, 0.0) for s in self.steps) / len(self.steps)

    def own(self, phase: str) -> float:
        """Seconds per steady step in ``phase``, without the rank's waiting in collectives there."""
        if not self.steps:
            return 0.0
        return sum(max(0.0, getattr(s, phase, 0.0) - self.wait_by_phase.get((s.index, phase), 0.0))
                   for s in self.steps) / len(self.steps)


def _matched_calls(ranks: Sequence[RankRecord]) -> list[dict]:
    """The calls every rank made, matched across ranks: the n-th call of a kind is the same call."""
    by_call: dict[tuple[str, int], dict] = defaultdict(dict)
    for i, rank in enumerate(ranks):  # by position: ranks read from traces may not know their number
        count: dict[str, int] = defaultdict(int)
        for c in rank.collectives:
            by_call[(c.kind, count[c.kind])][i] = c
            count[c.kind] += 1
    # A call some rank never made (it ended first): nobody's transfer is known.
    return [call for call in by_call.values() if len(call) == len(ranks)]


def _split(ranks: Sequence[RankRecord]) -> list:
    """Per rank: its steady steps, and per step the seconds in collectives and the waiting among them,
    each capped at the step's own duration (a call's index can only be a step that contained it)."""
    steady = [steady_steps(r.record) for r in ranks]
    durations = [{s.index: s.duration for s in steps} for steps in steady]
    time: list = [defaultdict(float) for _ in ranks]
    wait: list = [defaultdict(float) for _ in ranks]
    transfer: list = [defaultdict(float) for _ in ranks]
    by_phase: list = [defaultdict(float) for _ in ranks]
    for call in _matched_calls(ranks):
        shortest = min(c.duration for c in call.values())
        for rank, c in call.items():
            time[rank][c.step] += c.duration
            transfer[rank][c.step] += shortest
            wait[rank][c.step] += c.duration - shortest
            by_phase[rank][(c.step, c.phase or "other")] += c.duration - shortest
    out = []
    for k, r in enumerate(ranks):
        cap = durations[k]
        capped_time = {i: min(v, cap[i]) for i, v in time[k].items() if i in cap}
        capped_wait = {i: min(v, capped_time[i]) for i, v in wait[k].items() if i in capped_time}
        capped_transfer = {i: min(v, capped_time.get(i, 0.0)) for i, v in transfer[k].items()}
        out.append(_Rank(r, steady[k], capped_time, capped_wait, capped_transfer, dict(by_phase[k])))
    return out


def _error(record: RunRecord) -> Optional[str]:
    outcome = record.outcome
    if outcome.status != "failed" or not outcome.exception_type:
        return None
    message = (outcome.exception_message or "").strip().splitlines()
    first = message[0] if message else ""
    return outcome.exception_type + (f": {first if len(first) <= 160 else first[:159] + '…'}" if first else "")


def _loaders(record: RunRecord):
    return [l for l in record.settings.dataloaders if l.used_in_training] or list(record.settings.dataloaders)


def _device_parts(record: RunRecord) -> dict[str, float]:
    """A trace's GPU step in seconds per step, part by part; empty without a device timeline."""
    facts = device.compute(record)
    base = facts.get("profiled_step_time")
    if not facts.get("device_timeline_available") or not base:
        return {}
    return {name: float(facts.get(name) or 0.0) * float(base) for name in DEVICE_PARTS}  # type: ignore[arg-type]


def _row(rank: _Rank) -> RankFigures:
    record = rank.source.record
    loaders = _loaders(record)
    timed = bool(rank.source.collectives)
    return RankFigures(
        rank=rank.source.rank, files=rank.source.files or ((rank.source.folder + "/run.json",) if rank.source.folder
                                                          else ()),
        node=rank.source.node, steps=sum(1 for s in record.steps if not s.validation),
        steady_steps=len(rank.steps), step_time=mean_step_time(rank.steps),
        phases={p: (sum(getattr(s, p, 0.0) for s in rank.steps) / len(rank.steps)) if rank.steps else 0.0
                for p in PHASE_NAMES},
        device_parts=_device_parts(record),
        collective_time=rank.per_step(rank.time) if timed else None,
        collective_wait=rank.per_step(rank.wait) if timed else None,
        collective_transfer=rank.per_step(rank.transfer) if timed else None,
        status=record.outcome.status, error=_error(record),
        batches=sum(l.batches for l in loaders) if loaders else None)


def _cause(slow: int, rest: Sequence[int], split: list, rows: list
           ) -> tuple[Optional[str], Optional[float], Optional[float]]:
    """The part of the slow rank's step where it spends the most beyond the others' mean: (part, its
    seconds, theirs). Step phases when the ranks' steps have them; a trace's GPU step otherwise."""
    candidates = []
    for phase in PHASE_NAMES:
        mine = split[slow].own(phase)
        theirs = sum(split[k].own(phase) for k in rest) / len(rest)
        candidates.append((mine - theirs, phase, mine, theirs))
    best = max(candidates)
    if best[0] <= 0.0 and rows[slow].device_parts:
        candidates = []
        for name in DEVICE_PARTS:
            mine = rows[slow].device_parts.get(name, 0.0)
            theirs = sum(rows[k].device_parts.get(name, 0.0) for k in rest) / len(rest)
            candidates.append((mine - theirs, name, mine, theirs))
        best = max(candidates)
    if best[0] <= 0.0:
        return None, None, None
    return best[1], best[2], best[3]


def first_failed(ranks: Sequence[RankRecord]) -> Optional[RankRecord]:
    """The rank whose failure came first: it raised, or ended without a word ("the rank ended first
    without saying how"); a rank torchrun ended after another's failure is not it."""
    down = [r for r in ranks if r.record.outcome.status == "failed" or (
        r.record.outcome.status == "killed" and "ended first" in (r.record.outcome.reason or ""))]
    return min(down, key=lambda r: r.record.outcome.duration, default=None)


def _uses_distributed_sampler(record: RunRecord) -> Optional[bool]:
    loaders = [l for l in record.settings.dataloaders if l.used_in_training]
    if not loaders:
        return None
    return all("DistributedSampler" in (l.sampler_type or "") for l in loaders if not l.iterable)


def _ddp(ranks: Sequence[RankRecord]) -> Optional[DdpSettings]:
    """DDP's settings as the ranks read them; the unused-parameter search's cost is the worst rank's."""
    read = [r.ddp for r in ranks if r.ddp is not None]
    if not read:
        return None
    costs = [d.post_forward_time for d in read if d.post_forward_time is not None]
    return replace(read[-1], post_forward_time=max(costs) if costs else None)


def job_figures(job: JobRecord) -> JobFigures:
    """Every rank's figures and the job's: the base step, the straggler or the slowest rank, and why."""
    ranks = list(job.ranks)
    split = _split(ranks)
    rows = [_row(rank) for rank in split]
    timed = [k for k in range(len(ranks)) if rows[k].step_time]
    base = max((rows[k].step_time or 0.0 for k in timed), default=None)
    # With collectives timed on every rank the waiting names the straggler (or says nobody waits much);
    # without, the longest step is all there is to go by.
    measured = bool(timed) and all(rows[k].collective_wait is not None for k in timed)
    slowest = max(timed, key=lambda k: rows[k].step_time or 0.0) if len(timed) >= 2 and not measured else None
    straggler, waited_for = _straggler(timed, rows, base)
    lead = straggler if straggler is not None else slowest
    cause: tuple = (None, None, None)
    if lead is not None:
        cause = _cause(lead, [k for k in timed if k != lead], split, rows)
    failed = first_failed(ranks)
    samplers = [_uses_distributed_sampler(r.record) for r in ranks]
    number = lambda k: ranks[k].rank if k is not None else None  # noqa: E731
    figures = JobFigures(
        launcher=job.launcher, command_line=job.command_line,
        world_size=job.world_size or next((r.world_size for r in ranks if r.world_size), None) or len(ranks),
        nodes=job.nodes, backend=next((r.backend for r in ranks if r.backend), None), ddp=_ddp(ranks),
        ranks=tuple(replace(rows[k], straggler=k == straggler, slowest=k == slowest) for k in range(len(ranks))),
        step_time=base or None, straggler=number(straggler), slowest=number(slowest), cause=cause[0],
        cause_seconds=cause[1], others_seconds=cause[2], waited_for=waited_for,
        rank0_extra=_rank0_extra(split, timed),
        distributed_sampler=None if any(s is None for s in samplers) else all(samplers),  # type: ignore[arg-type]
        failed_rank=failed.rank if failed is not None else None,
        failed_error=_failed_error(failed))
    subject, why = _subject(figures, ranks)
    return replace(figures, subject=subject, subject_why=why)


def _failed_error(failed: Optional[RankRecord]) -> Optional[str]:
    if failed is None:
        return None
    return _error(failed.record) or f"{failed.record.outcome.status}: {failed.record.outcome.reason}"


def _straggler(timed: Sequence[int], rows: list, base: Optional[float]) -> tuple[Optional[int], Optional[float]]:
    """The rank (by position) the others wait for, and how long they wait for it per step; (None, None)
    when no rank waits much for another, some rank has too few steps to tell noise from a straggler,
    or the collectives were not timed on every rank."""
    if len(timed) < 2 or not base or any(rows[k].steady_steps < MIN_STEADY_STEPS for k in timed):
        return None, None
    if any(rows[k].collective_wait is None for k in timed):
        return None, None
    slow = min(timed, key=lambda k: rows[k].collective_wait or 0.0)
    rest = [k for k in timed if k != slow]
    # In a balanced job every rank waits now and then for another: only the others' waiting beyond the
    # straggler's own is waiting for it.
    waited_for = sum(rows[k].collective_wait or 0.0 for k in rest) / len(rest) - (rows[slow].collective_wait or 0.0)
    if waited_for < STRAGGLER_MIN_WAIT * base:
        return None, None
    return slow, waited_for


def _rank0_extra(split: list, timed: Sequence[int]) -> Optional[float]:
    """Seconds per step rank 0 spends in its own code and evaluation beyond the other ranks' mean."""
    zero = next((k for k in timed if split[k].source.rank == 0), None)
    if zero is None or not split[zero].source.collectives:
        return None
    others = [split[k] for k in timed if k != zero]
    if not others:
        return None
    mine = split[zero].own("other") + split[zero].own("eval")
    return mine - sum(r.own("other") + r.own("eval") for r in others) / len(others)


def _subject(figures: JobFigures, ranks: Sequence[RankRecord]) -> tuple[Optional[int], str]:
    """The rank whose record the job's rules read: the straggler (the job runs at its pace), else the
    failed rank, else (trainers, traces: nobody waits for anybody) the slowest, else the first rank."""
    if figures.straggler is not None:
        return figures.straggler, "the straggler"
    if figures.failed_rank is not None:
        return figures.failed_rank, "the failed rank"
    if figures.launcher != "torchrun" and figures.slowest is not None:
        return figures.slowest, "the slowest"
    first = ranks[0].rank if ranks else None
    return first, f"rank {first}" if first is not None else "the first"
