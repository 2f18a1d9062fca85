"""Whole jobs: a script launched through torchrun with every rank probed, the nodes' folders of one
job, the trainer processes a script starts: each becomes one job record (record_job.JobRecord).

``launch`` (the parent: torchrun with each rank as trainprobe's child), ``assemble`` (each rank's
stream -> its rank record), ``build`` (the ranks -> the job record: a torchrun job, merged nodes, a
job saved by an earlier version), ``trainers`` (the trainer processes a script started). What the
ranks are measured by lives under probe/ (probe/ranks.py, probe/trainers.py); what is judged of
the ranks side by side is the job fact family (facts/job.py); api/job.py orchestrates.
"""

from .assemble import JobInputError
from .build import merged_job, saved_job, torchrun_job

__all__ = ["JobInputError", "merged_job", "saved_job", "torchrun_job"]
