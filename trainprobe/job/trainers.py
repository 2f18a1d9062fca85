"""The job of the trainer processes a script started itself (torch.multiprocessing, hogwild style).

In the script's process the probe followed every process the script started (probe/trainers.py);
each that made training steps wrote its stream under ``trainer<pid>/``. When the script has ended,
those are the job's trainers: each gets its record, and the job is judged from them, side by side,
as the ranks of a torchrun job are. They share the model's memory and meet in no collective, so
none waits for another: the job has no straggler, and the slowest trainer leads. The main
process's own record is kept under ``main/``.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Optional

from ..probe.outcome import build_outcome
from ..probe.trainers import TRAINER_DIR
from ..record import Outcome, RunRecord
from ..record_file import write_record
from ..record_job import JobRecord, RankRecord
from .build import torchrun_job

__all__ = ["trainer_job"]


def _trainer_folders(out: Path) -> list[tuple[int, Path]]:
    found = []
    for folder in out.iterdir() if out.is_dir() else ():
        match = TRAINER_DIR.match(folder.name)
        if match and (folder / "events.jsonl").exists():
            found.append((int(match.group(1)), folder))
    return sorted(found)


def trainer_job(record: RunRecord, record_path: Path) -> Optional[JobRecord]:
    """The job of the trainers the script started, when any made training steps; else None. Each
    trainer's record is saved under its folder, and the main process's under ``main/``."""
    from ..probe.assemble import EventFollower, assemble_record

    out = Path(record_path).parent
    trainers = []
    for pid, folder in _trainer_folders(out):
        child = EventFollower(str(folder / "events.jsonl")).poll()
        if len([s for s in child.steps if not s.validation]) >= 2:
            trainers.append((pid, folder, child))
    if not trainers:
        return None
    pids = {pid for pid, _, _ in trainers}
    samples = replace(record.samples, processes=tuple(
        replace(p, role="trainer") if p.pid in pids else p for p in record.samples.processes))
    main = out / "main"
    main.mkdir(exist_ok=True)
    write_record(replace(record, samples=samples), main / "run.json")  # a copy: the job's run.json stands
    ranks = []
    for index, (pid, folder, child) in enumerate(trainers):
        startup = child.steps[0].start if child.steps else None
        if child.outcome:  # the trainer told how it ended: told as any process's ending is
            code = child.outcome.get("exit_code")
            outcome = build_outcome(code if isinstance(code, int) else 0, child.outcome, False, False,
                                    record.outcome.duration, startup, None, what="the trainer process")
        else:
            outcome = Outcome(status="killed" if record.outcome.status == "completed" else record.outcome.status,
                              duration=record.outcome.duration, startup=startup,
                              reason="the trainer ended without saying how (killed, or ended with the script)")
        rank_record = assemble_record(invocation=record.invocation, environment=record.environment, child=child,
                                      samples=samples, outcome=outcome, out_dir=str(folder),
                                      user_dirs=(os.path.dirname(record.invocation.script or ""), record.invocation.cwd),
                                      final=True)
        rank_record = replace(rank_record, notes=(f"trainer process {pid}, started by the script",) + rank_record.notes)
        lost = write_record(rank_record, folder / "run.json")
        if lost:  # the trainer's record stays in the job's record (job.json)
            rank_record = replace(rank_record, notes=rank_record.notes + (lost,))
        ranks.append(RankRecord(rank=index, record=rank_record, folder=str(folder), node=str(out), pid=pid))
    return torchrun_job(ranks, record.invocation.command_line, (str(out),), launcher="torch.multiprocessing",
                        outcome=record.outcome)
