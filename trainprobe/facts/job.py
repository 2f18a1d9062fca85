"""A job of several ranks (``RunRecord.job``, trainprobe/job/): its straggler, its collectives,
DDP's settings, work on rank 0 alone, uneven data. Unknown (None) on a single run and on a job
read from traces. Shares are of the job's median step (``job_step_time``)."""

from __future__ import annotations

from ..record import RunRecord
from ._stats import ratio

__all__ = ["FAMILY", "FACTS", "compute"]

FAMILY = "job"

FACTS = {
    "job_ranks": ("count", "Ranks in the job trainprobe launched (torchrun) or merged."),
    "job_step_time": ("s", "Median steady step across the job's ranks: the base of this family's shares."),
    "distributed_backend": ("text", "The process group's backend (gloo, nccl), read from DDP's group."),
    "straggler_rank": ("count", "The rank the others wait for in collectives (None when no rank waits much "
                       "for another)."),
    "straggler_cause": ("text", "The step phase where the straggler spends the most time more than the other "
                        "ranks: data_wait, h2d, forward, backward, optimizer, eval or other."),
    "straggler_excess": ("s", "Seconds per step the straggler spends in that phase beyond the other ranks' mean."),
    "straggler_data_wait": ("s", "The straggler's data wait per step (median)."),
    "straggler_host_work": ("s", "The straggler's own loop code and evaluation per step (median)."),
    "collective_share": ("share", "Share of the step the ranks spend inside collectives (all-reduce, "
                         "broadcast, barrier, DDP's gradient all-reduce), mean over ranks."),
    "collective_wait_share": ("share", "Share of the step the other ranks spend in collectives waiting for the "
                              "straggler, beyond its own waiting (without a straggler: every rank's waiting, "
                              "mean)."),
    "collective_wait_per_step": ("s", "Seconds per step of that waiting."),
    "collective_transfer_share": ("share", "Share of the step in the collectives' transfer itself (the last "
                                  "rank to arrive waits for nobody), mean over ranks."),
    "rank0_extra_per_step": ("s", "Seconds per step rank 0 spends in its loop's own code and evaluation beyond "
                             "the other ranks' mean: work on rank 0 alone (logging, checkpoints, evaluation)."),
    "rank0_extra_share": ("share", "That work's share of the step."),
    "ddp_find_unused_parameters": ("bool", "DDP was built with find_unused_parameters=True."),
    "ddp_unused_parameter_bytes": ("bytes", "Bytes of parameters DDP found unused (got no gradient), by "
                                   "DDP's own count."),
    "ddp_post_forward_per_step": ("s", "Seconds per forward DDP spent after the forward (with "
                                  "find_unused_parameters=True, the search of the autograd graph for unused "
                                  "parameters), measured."),
    "ddp_post_forward_share": ("share", "That time's share of the step."),
    "ddp_static_graph": ("bool", "DDP was built with static_graph=True."),
    "ddp_gradient_as_bucket_view": ("bool", "DDP was built with gradient_as_bucket_view=True."),
    "ddp_bucket_cap_mb": ("count", "DDP's bucket size, MB."),
    "ddp_broadcast_buffers": ("bool", "DDP broadcasts the module's buffers from rank 0 before every forward."),
    "distributed_sampler_missing": ("bool", "A job of several ranks trained on a loader without a "
                                    "DistributedSampler: every rank reads the whole dataset."),
    "batches_per_rank_spread": ("share", "(most - fewest) / most training batches fetched across the ranks."),
    "failed_rank": ("count", "The rank that failed first (None when none did)."),
}


def compute(record: RunRecord) -> dict[str, object]:
    job = record.job
    if job is None:
        return {}
    step = job.step_time
    straggler = next((r for r in record.ranks if r.rank == job.straggler), None)
    wait = job.collective_wait
    ddp = job.ddp
    post = ddp.post_forward_time if ddp else None
    batches = [b for b in job.batches_per_rank if b]
    return {
        "job_ranks": len(record.ranks),
        "job_step_time": step,
        "distributed_backend": job.backend,
        "straggler_rank": job.straggler,
        "straggler_cause": job.straggler_cause,
        "straggler_excess": job.straggler_excess,
        "straggler_data_wait": straggler.phases.get("data_wait") if straggler else None,
        "straggler_host_work": (straggler.phases.get("other", 0.0) + straggler.phases.get("eval", 0.0))
        if straggler else None,
        "collective_share": ratio(job.collective_time, step),
        "collective_wait_share": ratio(wait, step),
        "collective_wait_per_step": wait,
        "collective_transfer_share": ratio(job.collective_transfer, step),
        "rank0_extra_per_step": job.rank0_extra,
        "rank0_extra_share": ratio(job.rank0_extra, step),
        "ddp_find_unused_parameters": ddp.find_unused_parameters if ddp else None,
        "ddp_unused_parameter_bytes": ddp.unused_parameter_bytes if ddp else None,
        "ddp_post_forward_per_step": post,
        "ddp_post_forward_share": ratio(post, step),
        "ddp_static_graph": ddp.static_graph if ddp else None,
        "ddp_gradient_as_bucket_view": ddp.gradient_as_bucket_view if ddp else None,
        "ddp_bucket_cap_mb": ddp.bucket_cap_mb if ddp else None,
        "ddp_broadcast_buffers": ddp.broadcast_buffers if ddp else None,
        # Hogwild trainers each read their own data by design: only ranks of a torchrun job share a dataset.
        "distributed_sampler_missing": None if job.distributed_sampler is None or len(record.ranks) < 2
        or job.launcher != "torchrun" else not job.distributed_sampler,
        "batches_per_rank_spread": (max(batches) - min(batches)) / max(batches) if len(batches) >= 2 else None,
        "failed_rank": job.failed_rank,
    }
