"""Whole jobs: a script launched through torchrun with every rank probed, the nodes' folders of one job
joined (``trainprobe merge``), the trainer processes a script started, several ranks' traces. Each
becomes one job record (record_job.JobRecord), judged and reported the same way (:func:`finish_job`).

A job's folder holds ``job.json`` (the job: every rank's record), ``rank<N>/`` (each rank's own
record and stream), and the job's ``report.html``, ``summary.json`` and ``diagnosis.json``. Its
``run.json`` is the lead rank's record as the job's (the straggler's, else the failed rank's...),
for tools that read one run; `trainprobe report` on it finds ``job.json`` beside it and reports
the job.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..findings import Diagnosis, Verdict
from ..record import RunRecord
from ..record_file import write_record
from ..record_job import JobRecord
from .outputs import DiagnoseResult, TrainprobeError, check_target, default_folder, output_folder, write_outputs

__all__ = ["diagnose_job", "merge", "finish_job", "judge", "load_job", "job_beside", "job_command", "is_job_command",
           "JOB_FILE"]

JOB_FILE = "job.json"


def judge(job: JobRecord, rule_dirs: Sequence[Path] = ()) -> Diagnosis:
    """The rules on a job. Never raises: a failing engine gives an 'unknown' verdict."""
    try:
        from ..engine import judge_job

        return judge_job(job, tuple(rule_dirs))
    except Exception as exc:  # pylint: disable=broad-except  # a bug in a rule must not cost the report
        return Diagnosis(verdict=Verdict(category="unknown", headline=f"the rule engine failed on the job "
                                                                      f"({type(exc).__name__}: {exc})"))


def finish_job(job: JobRecord, out: Path, rule_dirs: Sequence[Path] = (),
               report_path: Optional[Path] = None) -> DiagnoseResult:
    """Save the job record, judge it, and write the job's run.json (its lead rank's record), report
    (``report_path``, by default report.html), summary and diagnosis into ``out``."""
    problems = [p for p in (write_record(job, out / JOB_FILE),) if p]
    diagnosis = judge(job, rule_dirs)
    record = job.as_run(diagnosis.job.subject if diagnosis.job is not None else None)
    record_path = out / "run.json"
    lost = write_record(record, record_path)
    result = write_outputs(record, record_path, diagnosis, report_path, problems + ([lost] if lost else []))
    return replace(result, record_saved=lost is None)


def is_job_command(args: Sequence[str]) -> bool:
    """Whether ``args`` is a torchrun command line (``torchrun ...``, ``python -m torch.distributed.run ...``)."""
    from ..job.launch import is_torchrun_command

    return bool(is_torchrun_command(args))


def job_command(args: Sequence[str], nproc_per_node: Optional[str] = None, module: Optional[str] = None
                ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """torchrun's options and the target, from ``trainprobe diagnose --nproc-per-node N [torchrun options]
    SCRIPT ARGS`` (or ``-- torchrun ...``, or ``-m MODULE``), split by torchrun's own parser. Raises
    TrainprobeError for options torchrun or trainprobe cannot take."""
    from ..job.launch import TorchrunError, is_torchrun_command, split_torchrun

    tokens = list(args)
    tokens = tokens[is_torchrun_command(tokens):]
    if nproc_per_node:
        tokens = ["--nproc-per-node", str(nproc_per_node), *tokens]
    if module:  # trainprobe diagnose --nproc-per-node 2 -m pkg.train ARGS: every argument is the module's
        tokens = ["-m", module, *tokens] if not nproc_per_node else \
            ["--nproc-per-node", str(nproc_per_node), "-m", module, *tokens[2:]]
    try:
        torchrun_args, target = split_torchrun(tokens)
    except TorchrunError as exc:
        raise TrainprobeError(str(exc)) from None
    if target[1:2] == ("--",) and target[0] != "-m":  # trainprobe diagnose --nproc-per-node 2 train.py -- --lr 1
        target = (target[0], *target[2:])
    return tuple(torchrun_args), tuple(target)


def diagnose_job(torchrun_args: Sequence[str], target: Sequence[str], out_dir: Optional[Path] = None, plan=None,
                 timeout: Optional[float] = None, rule_dirs: Sequence[Path] = (),
                 progress: Callable[[str], None] = lambda line: None,
                 child_output: Optional[Path] = None) -> DiagnoseResult:
    """Run ``target`` through torchrun with every rank probed: the job's record, diagnosis and report."""
    from ..job import torchrun_job
    from ..job.assemble import assemble_ranks
    from ..job.launch import TorchrunError, check_cores, launch_job
    from ..probe.config import WindowPlan
    from ..probe.launch import collect_environment
    from ..record import Outcome

    try:
        check_cores(torchrun_args)
    except TorchrunError as exc:
        raise TrainprobeError(str(exc)) from None
    check_target(target)
    out = output_folder(out_dir) if out_dir else default_folder(target)
    launch = launch_job(torchrun_args, target, out, plan or WindowPlan(), timeout, progress=progress,
                        child_output=child_output)
    script_dir = os.path.dirname(os.path.abspath(target[0])) if target[0] != "-m" else os.getcwd()
    environment = collect_environment((script_dir,))
    ranks = assemble_ranks(launch, environment, tuple({script_dir, os.getcwd()}))
    outcome = None
    if not ranks:
        outcome = Outcome(status="failed", exit_code=launch.returncode, duration=launch.duration,
                          reason=f"torchrun exited with status {launch.returncode} before any rank started the script")
    return finish_job(torchrun_job(ranks, launch.command_line, (str(out),), outcome=outcome), out, rule_dirs)


def merge(folders: Sequence[Path], out_dir: Optional[Path] = None, rule_dirs: Sequence[Path] = ()) -> DiagnoseResult:
    """Join the nodes' folders (each with its ranks' ``rank<N>/``) into one job, judged and reported."""
    from ..job import JobInputError, merged_job

    try:
        job = merged_job(folders)
    except JobInputError as exc:
        raise TrainprobeError(str(exc)) from None
    out = output_folder(out_dir) if out_dir else output_folder(Path(folders[0]).parent / "merged")
    return finish_job(job, out, rule_dirs)


def load_job(path: str | os.PathLike) -> JobRecord:
    """A saved job record, checked as a run record is: refused with what is wrong."""
    from ..record_file import RecordFileError, read_job

    try:
        return read_job(path)
    except RecordFileError as exc:
        raise TrainprobeError(str(exc)) from None


def job_beside(record: RunRecord, record_path: Path) -> Optional[JobRecord]:
    """The job a run.json belongs to: ``job.json`` beside it, or a job an earlier version saved in
    run.json itself (read again from its ranks' folders); None for a single run."""
    from ..job import saved_job

    beside = Path(record_path).with_name(JOB_FILE)
    if beside.exists():
        return load_job(beside)
    return saved_job(record, Path(record_path))
