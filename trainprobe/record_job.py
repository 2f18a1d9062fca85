"""A job: how it was launched, and each rank's own run record, as measured.

A job of several processes that train side by side: the ranks of a torchrun job (every rank
probed), the nodes' folders of one job joined (``trainprobe merge``), the trainer processes a
script starts itself (hogwild), or several ranks' torch.profiler traces (``trainprobe trace``).
All four build the same :class:`JobRecord`; it is saved as ``job.json`` beside the ranks'
folders and loaded like a run record, and holds measurements only: the straggler, the ranks'
waiting and every share are facts (facts/job.py), made from it by the rules' stage, so that
``trainprobe report job.json`` judges an old job with the rules of today.

Earlier versions saved a job as the chosen rank's ``run.json`` with a table of every rank and the
job's verdicts in it (record schema 2, ``RunRecord.job`` and ``RunRecord.ranks``): such a folder
still loads, from the ranks' own ``rank<N>/run.json`` beside it (api/job.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from .jsonio import JsonMixin
from .record import DdpSettings, Outcome, RunRecord

__all__ = ["JOB_SCHEMA_VERSION", "Collective", "RankRecord", "JobRecord", "LAUNCHERS"]

# Schema 1 and 2 jobs were run records (run.json); a job record of its own starts at 3.
JOB_SCHEMA_VERSION = 3

# torchrun: ranks that meet in collectives; torch.multiprocessing: trainers a script started (they
# share the model's memory and wait for nobody); traces: ranks read from torch.profiler files.
LAUNCHERS = ("torchrun", "torch.multiprocessing", "traces")


@dataclass(frozen=True)
class Collective(JsonMixin):
    """One collective call as one rank timed it, entry to exit (probe/ranks.py)."""

    kind: str = ""  # all_reduce, barrier, ddp_all_reduce, ...
    start: float = 0.0  # seconds from the node's launch
    duration: float = 0.0
    nbytes: Optional[int] = None
    step: int = -1  # the index of the step it ran in
    phase: Optional[str] = None  # the step phase it ran in (backward for DDP's gradient all-reduce)


@dataclass(frozen=True)
class RankRecord(JsonMixin):
    """One rank (or trainer process) of the job: its run record and what only a job has."""

    rank: Optional[int] = None  # None: a trace that does not say its rank
    record: RunRecord = field(default_factory=RunRecord)
    folder: str = ""  # where its run.json is
    node: Optional[str] = None  # the node's folder it came from
    files: tuple[str, ...] = ()  # the trace files it was read from
    collectives: tuple[Collective, ...] = ()
    ddp: Optional[DdpSettings] = None  # the DistributedDataParallel wrapper's settings, as read in this rank
    backend: Optional[str] = None  # the process group's backend (gloo, nccl)
    world_size: Optional[int] = None
    local_rank: Optional[int] = None
    node_rank: Optional[int] = None
    pid: Optional[int] = None


@dataclass(frozen=True)
class JobRecord(JsonMixin):
    """A whole job: its launch and every rank's record."""

    schema_version: int = JOB_SCHEMA_VERSION
    launcher: str = "torchrun"  # one of LAUNCHERS
    command_line: str = ""
    world_size: Optional[int] = None
    nodes: tuple[str, ...] = ()  # the folders (one per node) the ranks' records came from
    outcome: Outcome = field(default_factory=Outcome)  # how the job ended
    ranks: tuple[RankRecord, ...] = ()
    notes: tuple[str, ...] = ()

    def rank(self, number: Optional[int]) -> Optional[RankRecord]:
        return next((r for r in self.ranks if r.rank == number), None)

    def as_run(self, number: Optional[int]) -> RunRecord:
        """Rank ``number``'s record as the job's: the job's outcome, and the job's notes first. The job's
        rules read it, and the report describes it (with every rank's figures beside it)."""
        chosen = self.rank(number) or (self.ranks[0] if self.ranks else None)
        record = chosen.record if chosen is not None else RunRecord()
        return replace(record, outcome=self.outcome, notes=self.notes + record.notes)
