"""Each rank's folder -> its rank record: its run record, its collectives and DDP's settings.

A rank's folder (``rank<RANK>/``, written in the rank: probe/ranks.py) holds its event stream;
the parent turns it into ``rank<RANK>/run.json`` as a single run's stream is turned into one
(probe/assemble.py). The collectives and DDP's settings stay in the stream, where
``trainprobe merge`` reads them again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from ..record import DdpSettings, Outcome, ProcessSeries, RunRecord, Samples
from ..record_file import RecordFileError, read_record, write_record
from ..record_job import Collective, RankRecord

__all__ = ["RankEvents", "JobInputError", "read_rank_events", "rank_folders", "assemble_ranks", "load_rank"]

_RANK_DIR = re.compile(r"^rank(\d+)$")


class JobInputError(Exception):
    """A folder that does not hold what a job's rank needs, in one plain sentence."""


@dataclass(frozen=True)
class RankEvents:
    """What a rank's event stream holds beside its steps: its collectives, DDP's settings, its identity."""

    collectives: tuple[Collective, ...] = ()
    ddp: Optional[DdpSettings] = None
    backend: Optional[str] = None
    info: Optional[dict] = None  # world_size, local_rank, node_rank, pid

    def record(self, rank: int, folder: Path, record: RunRecord) -> RankRecord:
        info = self.info or {}
        return RankRecord(rank=rank, record=record, folder=str(folder), node=str(folder.parent),
                          collectives=self.collectives, ddp=self.ddp, backend=self.backend,
                          world_size=info.get("world_size"), local_rank=info.get("local_rank"),
                          node_rank=info.get("node_rank"), pid=info.get("pid"))


def rank_folders(out: Path) -> list[tuple[int, Path]]:
    found = []
    for folder in Path(out).iterdir() if Path(out).is_dir() else ():
        match = _RANK_DIR.match(folder.name)
        if match and folder.is_dir():
            found.append((int(match.group(1)), folder))
    return sorted(found)


def read_rank_events(folder: Path) -> RankEvents:
    """The collectives, the last DDP settings and the rank's identity from its event stream."""
    from ..probe.events import read_events

    collectives, ddp, info = [], {}, {}
    path = folder / "events.jsonl"
    if not path.exists():
        return RankEvents()
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
    return RankEvents(tuple(collectives), _ddp(ddp), str(ddp["backend"]) if ddp.get("backend") else None, info)


def _ddp(ddp: dict) -> Optional[DdpSettings]:
    if not ddp:
        return None
    unused = ddp.get("unused_parameter_bytes")
    return DdpSettings(
        bucket_cap_mb=ddp.get("bucket_cap_mb"), gradient_as_bucket_view=ddp.get("gradient_as_bucket_view"),
        static_graph=ddp.get("static_graph"), find_unused_parameters=ddp.get("find_unused_parameters"),
        broadcast_buffers=ddp.get("broadcast_buffers"), unused_parameter_bytes=None if unused is None else int(unused),
        post_forward_time=ddp.get("post_forward_time"), parameters=ddp.get("parameters"))


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
    from ..probe.outcome import build_outcome

    end = child.script_ended if child.script_ended is not None else launch.duration
    startup = child.clock.get("first_activity") or (child.steps[0].start if child.steps else None)
    if child.outcome is not None:
        code = child.outcome.get("exit_code")
        code = 0 if code is None and child.outcome.get("status") in ("completed", "stopped") else code
        outcome = build_outcome(code if isinstance(code, int) else 1, child.outcome, False, launch.interrupted, end,
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


def assemble_ranks(launch, environment, user_dirs: tuple[str, ...]) -> list[RankRecord]:
    """Every rank's record from its stream, saved as ``rank<RANK>/run.json``."""
    from ..probe.assemble import EventFollower, assemble_record
    from ..probe.launch import ProbeOptions, invocation_for

    folders = rank_folders(launch.out)
    children = {rank: EventFollower(str(folder / "events.jsonl")).poll() for rank, folder in folders}
    runs = []
    options = ProbeOptions(out_dir=launch.out, plan=launch.plan, timeout=launch.timeout)
    events = {rank: read_rank_events(folder) for rank, folder in folders}
    pids = {(e.info or {}).get("pid") for e in events.values()}
    ended = {rank: _ended_at(children[rank], launch.samples, (events[rank].info or {}).get("pid"))
             for rank, _ in folders}
    failed = _first_failure(children, ended) if not (launch.timed_out or launch.interrupted) else None
    for rank, folder in folders:
        child = children[rank]
        invocation = replace(invocation_for(launch.target, options, launch.t0), command_line=launch.command_line)
        outcome = _rank_outcome(child, launch, failed, rank, ended[rank])
        record = assemble_record(invocation=invocation, environment=environment, child=child,
                                 samples=_rank_samples(launch.samples, (events[rank].info or {}).get("pid"), pids),
                                 outcome=outcome, out_dir=str(folder), user_dirs=user_dirs, final=True)
        lost = write_record(record, folder / "run.json")
        if lost:  # the rank's record stays in the job's record (job.json)
            record = replace(record, notes=record.notes + (lost,))
        runs.append(events[rank].record(rank, folder, record))
    return runs


def load_rank(folder: Path, rank: int) -> RankRecord:
    """A rank's saved record and its stream's collectives (``trainprobe merge``)."""
    path = folder / "run.json"
    if not path.exists():
        raise JobInputError(f"{folder} has no run.json (its node's trainprobe did not finish)")
    try:
        record = read_record(path)
    except RecordFileError as exc:
        raise JobInputError(str(exc)) from None
    return read_rank_events(folder).record(rank, folder, record)
