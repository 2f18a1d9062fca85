"""The job record of a torchrun job, of the nodes' folders of one job, or of a job saved by an
earlier version: its ranks' records and how the job ended (record_job.JobRecord)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Optional, Sequence

from ..record import Outcome, RunRecord
from ..record_job import JobRecord, RankRecord
from .assemble import JobInputError, load_rank, rank_folders

__all__ = ["torchrun_job", "merged_job", "job_outcome", "saved_job"]


def _note(ranks: Sequence[RankRecord], command_line: str, launcher: str) -> str:
    what = "ranks launched with" if launcher == "torchrun" else "trainer processes started by" \
        if launcher == "torch.multiprocessing" else "ranks' traces of"
    return f"a job of {len(ranks)} {what} {command_line}".rstrip()


def torchrun_job(ranks: Sequence[RankRecord], command_line: str, nodes: Sequence[str],
                 launcher: str = "torchrun", outcome: Optional[Outcome] = None,
                 notes: Sequence[str] = ()) -> JobRecord:
    """The job of ``ranks``. ``outcome``: how the script's own process ended, when the ranks are
    processes it started; else the job's ending is told from its ranks' (:func:`job_outcome`)."""
    ranks = tuple(sorted(ranks, key=lambda r: (r.rank is None, r.rank or 0)))
    world = next((r.world_size for r in ranks if r.world_size), None)
    return JobRecord(launcher=launcher, command_line=command_line, world_size=world or len(ranks),
                     nodes=tuple(nodes), outcome=outcome if outcome is not None else job_outcome(ranks),
                     ranks=ranks, notes=(_note(ranks, command_line, launcher),) + tuple(notes))


def merged_job(folders: Sequence[Path]) -> JobRecord:
    """Join the nodes' folders (each with its ranks' ``rank<N>/``) into one job. Raises JobInputError for
    a folder without ranks, a rank in two folders, or a rank without its record."""
    runs: dict[int, RankRecord] = {}
    for folder in folders:
        found = rank_folders(Path(folder))
        if not found:
            raise JobInputError(f"{folder} holds no rank<N>/ folders of a job diagnosed by trainprobe")
        for rank, sub in found:
            if rank in runs:
                raise JobInputError(f"rank {rank} is in both {Path(runs[rank].folder).parent} and {folder}")
            runs[rank] = load_rank(sub, rank)
    command = next(iter(runs.values())).record.invocation.command_line
    return torchrun_job([runs[r] for r in sorted(runs)], command, tuple(str(f) for f in folders))


def saved_job(record: RunRecord, path: Path) -> Optional[JobRecord]:
    """A job saved by an earlier version (schema 2: the chosen rank's run.json with ``job`` and ``ranks``)
    as a job record, from its ranks' own folders beside it; None for a single run, or when the ranks'
    records are not there."""
    folder = Path(path).parent
    if record.job is None and not record.ranks:
        return None
    launcher = record.job.launcher if record.job is not None else "traces"
    ranks = []
    for row in record.ranks:
        sub = folder / (f"rank{row.rank}" if launcher != "torch.multiprocessing" else "")
        if launcher == "torch.multiprocessing":  # trainer folders are named by pid, in rank order
            subs = sorted((p for p in folder.glob("trainer*") if (p / "run.json").exists()),
                          key=lambda p: int(p.name[len("trainer"):]) if p.name[len("trainer"):].isdigit() else 0)
            sub = subs[row.rank] if row.rank is not None and row.rank < len(subs) else folder / "missing"
        try:
            rank = load_rank(sub, row.rank if row.rank is not None else len(ranks))
        except JobInputError:
            return None
        ranks.append(replace(rank, rank=row.rank, files=tuple(row.files) if launcher == "traces" else ()))
    if not ranks:
        return None
    job = record.job
    return JobRecord(launcher=launcher, command_line=job.command_line if job else record.invocation.command_line,
                     world_size=job.world_size if job else len(ranks), nodes=job.nodes if job else (),
                     outcome=record.outcome, ranks=tuple(ranks),
                     notes=(f"a job saved by an earlier trainprobe, read again from its ranks' records in {folder}",))


def job_outcome(ranks: Sequence[RankRecord]) -> Outcome:
    """How the job ended, told from its ranks': the first failure, else a timeout, an interruption or a
    kill on any rank, else rank 0's ending."""
    from ..facts.job import first_failed

    outcomes = [r.record.outcome for r in ranks]
    if not outcomes:
        return Outcome(status="failed", reason="no rank started the script")
    longest = max(o.duration for o in outcomes)
    failed = first_failed(ranks)
    if failed is not None:
        o = failed.record.outcome
        what = f"failed with {o.exception_type}" if o.exception_type else "was killed by a signal (it ended without a word)"
        return replace(o, reason=f"rank {failed.rank} {what}; torchrun ended the other ranks", duration=longest)
    for status in ("timeout", "interrupted", "killed"):
        hit = next((o for o in outcomes if o.status == status), None)
        if hit is not None:
            reason = hit.reason
            stalled = _stalled(ranks) if status == "timeout" else None
            if stalled is not None:
                reason += (f"; rank {stalled[0]} made its last step {stalled[1]:.1f} s before the others' last, "
                           "and they waited for it")
            return replace(hit, reason=reason, duration=longest)
    return replace(outcomes[0], duration=longest)


def _stalled(ranks: Sequence[RankRecord]) -> Optional[tuple[int, float]]:
    """The rank that stopped making steps first, by how long before the others' last step (a hang)."""
    ends = {r.rank: max((st.start + st.duration for st in r.record.steps), default=0.0) for r in ranks}
    if len(ends) < 2:
        return None
    first = min(ends, key=ends.get)  # type: ignore[arg-type]
    gap = min(v for r, v in ends.items() if r != first) - ends[first]
    return (first, gap) if gap > 1.0 else None  # type: ignore[return-value]
