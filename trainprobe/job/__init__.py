"""Whole jobs: a script launched through torchrun, every rank probed, one record and one report.

``launch`` (the parent: torchrun with each rank as trainprobe's child), ``rank`` (in each rank:
its folder, its collectives, DDP's settings), ``assemble`` (each rank's stream -> its record),
``analysis`` (the ranks side by side: collectives split into waiting and transfer, the straggler
and its cause), ``run`` (diagnose a job, merge the nodes' folders).
"""

from .run import diagnose_job, job_result, merge_job

__all__ = ["diagnose_job", "merge_job", "job_result"]
