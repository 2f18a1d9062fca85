"""A whole job: launch it (or read its nodes' folders), then one record and one report.

The job's record is its straggler's record (or, without one, the failed rank's, else rank 0's)
with every rank's row (``RunRecord.ranks``, as ``trainprobe trace`` builds for traces) and the
job's summary (``RunRecord.job``); the rules run on it once more, so the job's own rules (a
straggler, work on rank 0 alone, DDP's settings, uneven data) see the whole job.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..record import Outcome, RunRecord
from .analysis import CAUSES, analyze_job
from .assemble import RankRun, assemble_ranks, load_rank, rank_folders

__all__ = ["diagnose_job", "merge_job", "job_result", "job_verdict"]

_STRAGGLER_RULES = ("straggler-rank", "work-on-rank-0-alone")


def diagnose_job(torchrun_args: Sequence[str], target: Sequence[str], out_dir: Optional[Path] = None,
                 plan=None, timeout: Optional[float] = None, rule_dirs: Sequence[Path] = (),
                 progress: Callable[[str], None] = lambda line: None, child_output: Optional[Path] = None):
    """Run ``target`` through torchrun with every rank probed; the job's DiagnoseResult."""
    from ..api import TrainprobeError, default_folder, check_target, output_folder
    from ..probe.config import WindowPlan
    from ..probe.launch import _collect_environment
    from .launch import TorchrunError, check_cores, launch_job

    try:
        check_cores(torchrun_args)
    except TorchrunError as exc:
        raise TrainprobeError(str(exc)) from None
    check_target(target)
    out = output_folder(out_dir) if out_dir else default_folder(target)
    launch = launch_job(torchrun_args, target, out, plan or WindowPlan(), timeout, progress=progress,
                        child_output=child_output)
    script_dir = os.path.dirname(os.path.abspath(target[0])) if target[0] != "-m" else os.getcwd()
    environment = _collect_environment((script_dir,))
    runs = assemble_ranks(launch, environment, tuple({script_dir, os.getcwd()}))
    if not runs:
        outcome = Outcome(status="failed", exit_code=launch.returncode, duration=launch.duration,
                          reason=f"torchrun exited with status {launch.returncode} before any rank started the script")
        from ..probe.launch import _invocation, ProbeOptions

        record = RunRecord(invocation=replace(_invocation(target, ProbeOptions(out_dir=out), launch.t0),
                                              command_line=launch.command_line),
                           environment=environment, outcome=outcome)
        record.save(out / "run.json")
        from ..api import finish

        return finish(record, out / "run.json", rule_dirs)
    return job_result(runs, out, rule_dirs, launch.command_line, nodes=(str(out),))


def merge_job(folders: Sequence[Path], out_dir: Optional[Path] = None, rule_dirs: Sequence[Path] = ()):
    """Join the nodes' folders (each with its ranks' ``rank<N>/``) into one job."""
    from ..api import TrainprobeError, output_folder

    runs: dict[int, RankRun] = {}
    for folder in folders:
        found = rank_folders(Path(folder))
        if not found:
            raise TrainprobeError(f"{folder} holds no rank<N>/ folders of a job diagnosed by trainprobe")
        for rank, sub in found:
            if rank in runs:
                raise TrainprobeError(f"rank {rank} is in both {runs[rank].folder.parent} and {folder}")
            if not (sub / "run.json").exists():
                raise TrainprobeError(f"{sub} has no run.json (its node's trainprobe did not finish)")
            runs[rank] = load_rank(sub, rank)
    out = output_folder(out_dir) if out_dir else output_folder(Path(folders[0]).parent / "merged")
    command = next(iter(runs.values())).record.invocation.command_line
    return job_result([runs[r] for r in sorted(runs)], out, rule_dirs, command, nodes=tuple(str(f) for f in folders))


def job_result(runs: Sequence[RankRun], out: Path, rule_dirs: Sequence[Path], command_line: str,
               nodes: Sequence[str], launcher: str = "torchrun", main_outcome: Optional[Outcome] = None):
    """``main_outcome``: how the script's own process ended, when the ranks are processes it started."""
    from ..api import analyze, write_outputs

    rows, job = analyze_job(runs, command_line, nodes)
    job = replace(job, launcher=launcher)
    diagnoses = {run.rank: analyze(run.record, rule_dirs) for run in runs}
    rows = tuple(replace(row, verdict=diagnoses[row.rank].verdict.category,
                         headline=diagnoses[row.rank].verdict.headline) for row in rows)
    if launcher != "torchrun":  # trainers that share nothing but the model wait for nobody: no straggler
        job = replace(job, straggler=None, straggler_cause=None, straggler_excess=None, straggler_why=None)
        rows = tuple(replace(row, slowest=False, why_slowest=None) for row in rows)
    timed = [row for row in rows if row.step_time]
    slowest = max(timed, key=lambda row: row.step_time).rank if timed else runs[0].rank  # type: ignore[arg-type]
    chosen = job.straggler if job.straggler is not None else job.failed_rank if job.failed_rank is not None \
        else slowest if launcher != "torchrun" else runs[0].rank
    base = next(run for run in runs if run.rank == chosen)
    outcome = _job_outcome(runs, job) if main_outcome is None else main_outcome
    what = "ranks launched with" if launcher == "torchrun" else "trainer processes started by"
    notes = (f"a job of {len(runs)} {what} {command_line}; this record is {'rank' if launcher == 'torchrun' else 'trainer'} {chosen}'s "
             f"({'the straggler' if chosen == job.straggler else 'the failed rank' if chosen == job.failed_rank else 'rank 0'}), "
             "with every rank's row",) + base.record.notes
    record = replace(base.record, ranks=rows, job=job, outcome=outcome, notes=notes)
    record_path = out / "run.json"
    record.save(record_path)
    diagnosis = analyze(record, rule_dirs)  # with the job's framing (job_verdict)
    return write_outputs(record, record_path, diagnosis)


def job_verdict(job, diagnosis):
    """The job's verdict: the failed rank, or the straggler and its own bottleneck, leads the headline.
    Applied by ``api.analyze`` to every record that holds a job, so `trainprobe report` says the same."""
    verdict = diagnosis.verdict
    if job.failed_rank is not None:
        return replace(diagnosis, verdict=replace(
            verdict, headline=f"rank {job.failed_rank} failed ({job.failed_error}); {verdict.headline}"))
    if job.straggler is None:
        return diagnosis
    kind = CAUSES.get(job.straggler_cause or "", ("", ""))[0]
    headline = f"rank {job.straggler} holds the job back ({kind or 'its own work'}): {verdict.headline}"
    # The job waits for its straggler: its bottleneck is the straggler's (input, compute, host),
    # not the communication the others spend waiting.
    verdict = replace(verdict, headline=headline)
    if kind and verdict.primary_finding in _STRAGGLER_RULES and kind != verdict.category:
        # The resampled interval was of the communication class's share: not this class's.
        verdict = replace(verdict, category=kind, agreement=None, alternative=None, share_low=None,
                          share_high=None)
    return replace(diagnosis, verdict=verdict)


def _job_outcome(runs: Sequence[RankRun], job) -> Outcome:
    outcomes = [run.record.outcome for run in runs]
    failed = next((run for run in runs if run.rank == job.failed_rank), None)
    if failed is not None:
        o = failed.record.outcome
        what = f"failed with {o.exception_type}" if o.exception_type else "was killed by a signal (it ended without a word)"
        return replace(o, reason=f"rank {failed.rank} {what}; torchrun ended the other ranks",
                       duration=max(x.duration for x in outcomes))
    for status in ("timeout", "interrupted", "killed"):
        hit = next((o for o in outcomes if o.status == status), None)
        if hit is not None:
            reason = hit.reason
            stalled = _stalled(runs) if status == "timeout" else None
            if stalled is not None:
                reason += (f"; rank {stalled[0]} made its last step {stalled[1]:.1f} s before the others' last, "
                           "and they waited for it")
            return replace(hit, reason=reason, duration=max(x.duration for x in outcomes))
    first = outcomes[0]
    return replace(first, duration=max(x.duration for x in outcomes))


def _stalled(runs: Sequence[RankRun]) -> Optional[tuple[int, float]]:
    """The rank that stopped making steps first, by how long before the others' last step (a hang)."""
    ends = {run.rank: max((st.start + st.duration for st in run.record.steps), default=0.0) for run in runs}
    if len(ends) < 2:
        return None
    first = min(ends, key=ends.get)  # type: ignore[arg-type]
    gap = min(v for r, v in ends.items() if r != first) - ends[first]
    return (first, gap) if gap > 1.0 else None
