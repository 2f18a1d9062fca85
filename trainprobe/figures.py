"""A job's figures, rank by rank: what the job fact family (facts/job.py) measured of each rank.

The job's scalar facts (the straggler, the waiting, DDP's settings) are ordinary facts of the
catalog; these are the same numbers per rank, for the report's table and its "why" sentence. The
report shows them and computes nothing from them. Every per-step figure is a mean over the rank's
steady steps (facts/window.py), and every share of the job is of one base, ``JobFigures.step_time``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .jsonio import JsonMixin
from .record import DdpSettings

__all__ = ["RankFigures", "JobFigures"]


@dataclass(frozen=True)
class RankFigures(JsonMixin):
    rank: Optional[int] = None
    files: tuple[str, ...] = ()  # its run.json, or the trace files it was read from
    node: Optional[str] = None
    steps: int = 0  # training steps recorded
    steady_steps: int = 0  # the steps its figures are taken from
    step_time: Optional[float] = None  # mean steady step, seconds
    phases: dict[str, float] = field(default_factory=dict)  # seconds per steady step, by step phase
    device_parts: dict[str, float] = field(default_factory=dict)  # a trace's GPU step: device fact -> seconds
    collective_time: Optional[float] = None  # seconds per steady step inside collectives
    collective_wait: Optional[float] = None  # of which waiting for the last rank to arrive
    collective_transfer: Optional[float] = None  # of which the transfer (the last arrival's time in it)
    status: Optional[str] = None  # how the rank ended: completed, stopped, failed, killed...
    error: Optional[str] = None  # "ValueError: ...", when it failed
    batches: Optional[int] = None  # training batches it fetched
    straggler: bool = False  # the rank the others wait for
    slowest: bool = False  # the longest mean step (without a straggler: what the table marks)
    verdict: str = "unknown"  # its own diagnosis, alone
    headline: str = ""


@dataclass(frozen=True)
class JobFigures(JsonMixin):
    launcher: str = "torchrun"
    command_line: str = ""
    world_size: Optional[int] = None
    nodes: tuple[str, ...] = ()
    backend: Optional[str] = None
    ddp: Optional[DdpSettings] = None
    ranks: tuple[RankFigures, ...] = ()
    subject: Optional[int] = None  # the rank whose record the job's rules read (and the report describes)
    subject_why: str = ""  # "the straggler", "the failed rank", "the slowest", "rank 0"
    step_time: Optional[float] = None  # the base of every share: the slowest rank's mean steady step
    straggler: Optional[int] = None
    slowest: Optional[int] = None
    # Why the straggler (or, without one, the slowest rank) is slower: the part of its step where it
    # spends the most beyond the other ranks' mean, each rank's waiting in collectives taken out.
    cause: Optional[str] = None  # a step phase (vocabulary.PHASES) or, for traces, a device fact name
    cause_seconds: Optional[float] = None  # its seconds per step in that part
    others_seconds: Optional[float] = None  # the other ranks' mean there
    waited_for: Optional[float] = None  # seconds per step the others wait for the straggler, beyond its own waiting
    rank0_extra: Optional[float] = None  # seconds per step rank 0 spends in its own code beyond the others
    distributed_sampler: Optional[bool] = None  # every rank's training loader used a DistributedSampler
    failed_rank: Optional[int] = None
    failed_error: Optional[str] = None

    def row(self, rank: Optional[int]) -> Optional[RankFigures]:
        return next((r for r in self.ranks if r.rank == rank), None)

    @property
    def excess(self) -> Optional[float]:
        if self.cause_seconds is None or self.others_seconds is None:
            return None
        return self.cause_seconds - self.others_seconds
