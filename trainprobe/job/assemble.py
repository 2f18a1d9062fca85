"""Each rank's folder -> its run record, and what the job analysis needs beside it.

A rank's folder (``rank<RANK>/``, written by job/rank.py in the rank) holds its event stream;
the parent turns it into ``rank<RANK>/run.json`` as a single run's stream is turned into one
(probe/assemble.py). The collectives and DDP's settings stay in the stream, where
``trainprobe merge`` reads them again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from ..record import Outcome, ProcessSeries, RunRecord, Samples

__all__ = ["RankRun", "Collective", "read_rank_events", "rank_folders", "assemble_ranks", "load_rank"]

_RANK_DIR = re.compile(r"^rank(\d+)$")


@dataclass(frozen=True)
class Collective:
    kind: str  # all_reduce, barrier, ddp_all_reduce, ...
    start: float  # seconds from the node's launch
    duration: float
    nbytes: Optional[int]
    step: int  # the step index it ran in
    phase: Optional[str]  # the step phase it ran in (backward for DDP's all-reduce)


@dataclass(frozen=True)
class RankRun:
    rank: int
    folder: Path
    record: RunRecord
    collectives: tuple[Collective, ...] = ()
    ddp: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)  # world_size, local_rank, node_rank, pid


def rank_folders(out: Path) -> list[tuple[int, Path]]:
    found = []
    for folder in Path(out).iterdir() if Path(out).is_dir() else ():
        match = _RANK_DIR.match(folder.name)
        if match and folder.is_dir():
            found.append((int(match.group(1)), folder))
    return sorted(found)


def read_rank_events(folder: Path) -> tuple[tuple[Collective, ...], dict, dict]:
    """The collectives, the last DDP settings and the rank's identity from its event stream."""
    from ..probe.events import read_events

    collectives, ddp, info = [], {}, {}
    path = folder / "events.jsonl"
    if not path.exists():
        return (), {}, {}
    for event in read_events(path):
        kind = event.get("type")
        if kind == "collective":
            try:
                collectives.append(Collective(str(event["k"]), float(event["t"]), float(event["d"]), event.get("b"),
                                              int(event.get("s", -1)), event.get("p")))
            except (KeyError, TypeError, ValueError):
                continue
        elif kind == "ddp":
            ddp = {k: v for k, v in event.items() if k != "type"}
        elif kind == "rank":
            info = {k: v for k, v in event.items() if k != "type"}
    return tuple(collectives), ddp, info


def _rank_samples(samples: Samples, pid: Optional[int], ranks: set) -> Samples:
    """The job's samples as one rank sees them: its own process is the main one; torchrun's agent
    and the other ranks are the job's other processes (not outside load); DataLoader workers stay
    workers (which rank's cannot be told apart from the samples)."""
    def role(p: ProcessSeries) -> str:
        if p.pid == pid:
            return "main"
        if p.pid in ranks or p.role == "main":
            return "other"
        return p.role

    return replace(samples, processes=tuple(replace(p, role=role(p)) for p in samples.processes))


def _ended_at(child, samples: Samples, pid: Optional[int]) -> Optional[float]:
    """When the rank's script ended by its own account, else when its process was last seen alive."""
    if child.script_ended is not None:
        return child.script_ended
    seen = [p.t[-1] for p in samples.processes if pid is not None and p.pid == pid and p.t]
    return max(seen) if seen else None


def _first_failure(children: dict, ended: dict) -> Optional[tuple[int, str]]:
    """The rank whose failure came first: one that raised, or one that ended without a word (a
    signal); the others' failures followed it (a peer's connection closed, torchrun ended them)."""
    down = []
    for rank, child in children.items():
        status = (child.outcome or {}).get("status")
        if status == "failed":
            down.append((ended[rank], rank, str(child.outcome.get("exception_type") or "an error")))
        elif child.outcome is None and child.started:
            down.append((ended[rank], rank, "killed by a signal"))
    known = [d for d in down if d[0] is not None]
    if not known:
        return (down[0][1], down[0][2]) if down else None
    _, rank, what = min(known)
    return rank, what


def _rank_outcome(child, launch, failed: Optional[tuple[int, str]], rank: int,
                  ended: Optional[float] = None) -> Outcome:
    from ..probe.launch import _outcome

    end = child.script_ended if child.script_ended is not None else launch.duration
    startup = child.clock.get("first_activity") or (child.steps[0].start if child.steps else None)
    if child.outcome is not None:
        code = child.outcome.get("exit_code")
        code = 0 if code is None and child.outcome.get("status") in ("completed", "stopped") else code
        outcome = _outcome(code if isinstance(code, int) else 1, child.outcome, False, launch.interrupted, end,
                           startup, child.stop_requested)
        if outcome.status == "failed" and failed is not None and failed[0] != rank:
            outcome = replace(outcome, reason=f"{outcome.reason}, after rank {failed[0]} failed ({failed[1]})")
        return outcome
    base = dict(duration=ended if ended is not None else launch.duration, startup=startup)
    if launch.timed_out:
        return Outcome(status="timeout", signal="SIGTERM",
                       reason="the job ran past --timeout and trainprobe ended every rank", **base)
    if launch.interrupted:
        return Outcome(status="interrupted", reason="interrupted with Ctrl-C", **base)
    if failed is not None and failed[0] != rank:
        return Outcome(status="killed", signal="SIGTERM",
                       reason=f"torchrun ended this rank after rank {failed[0]} failed ({failed[1]}); it was "
                              "probably waiting for it in a collective", **base)
    first = " first" if failed is not None and failed[0] == rank else ""
    return Outcome(status="killed", reason=f"the rank ended{first} without saying how (killed by a signal, or "
                                           "os._exit)", **base)


def assemble_ranks(launch, environment, user_dirs: tuple[str, ...]) -> list[RankRun]:
    """Every rank's record from its stream, saved as ``rank<RANK>/run.json``."""
    from ..probe.assemble import EventFollower, assemble_record
    from ..probe.launch import _invocation, ProbeOptions

    folders = rank_folders(launch.out)
    children = {rank: EventFollower(str(folder / "events.jsonl")).poll() for rank, folder in folders}
    runs = []
    options = ProbeOptions(out_dir=launch.out, plan=launch.plan, timeout=launch.timeout)
    events = {rank: read_rank_events(folder) for rank, folder in folders}
    pids = {info.get("pid") for _, _, info in events.values()}
    ended = {rank: _ended_at(children[rank], launch.samples, events[rank][2].get("pid")) for rank, _ in folders}
    failed = _first_failure(children, ended) if not (launch.timed_out or launch.interrupted) else None
    for rank, folder in folders:
        child = children[rank]
        collectives, ddp, info = events[rank]
        invocation = replace(_invocation(launch.target, options, launch.t0), command_line=launch.command_line)
        outcome = _rank_outcome(child, launch, failed, rank, ended[rank])
        record = assemble_record(invocation=invocation, environment=environment, child=child,
                                 samples=_rank_samples(launch.samples, info.get("pid"), pids), outcome=outcome,
                                 out_dir=str(folder), user_dirs=user_dirs, final=True)
        record.save(folder / "run.json")
        runs.append(RankRun(rank, folder, record, collectives, ddp, info))
    return runs


def load_rank(folder: Path, rank: int) -> RankRun:
    """A rank's saved record and its stream's collectives (``trainprobe merge``)."""
    from ..api import load_record

    collectives, ddp, info = read_rank_events(folder)
    return RankRun(rank, folder, load_record(folder / "run.json"), collectives, ddp, info)
