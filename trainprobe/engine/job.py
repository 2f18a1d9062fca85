"""The rules on a whole job: every rank alone, then the job from its lead rank's record and the job's facts.

The job's figures (facts/job.py) name the rank the job is judged from: the straggler (the job runs
at its pace), else the failed rank, else for ranks that wait for nobody the slowest, else rank 0.
Its record, with the job's own facts (the straggler, the waiting, DDP's settings, uneven data),
goes through the rules once more, so the job's rules see the whole job; the verdict's headline
then leads with the failed rank or the straggler (engine/framing.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from ..facts.job import job_figures
from ..findings import Diagnosis
from ..record_job import JobRecord
from .apply import apply_rules

__all__ = ["judge_job"]


def judge_job(job: JobRecord, extra_rule_dirs: Sequence[Path] = ()) -> Diagnosis:
    """The job's diagnosis: its lead rank's findings with the job's, and every rank's figures and verdict."""
    figures = job_figures(job)
    rows = []
    for rank, row in zip(job.ranks, figures.ranks):
        alone = apply_rules(rank.record, extra_rule_dirs)
        rows.append(replace(row, verdict=alone.verdict.category, headline=alone.verdict.headline))
    figures = replace(figures, ranks=tuple(rows))
    return apply_rules(job.as_run(figures.subject), extra_rule_dirs, job=figures)
