"""A job's verdict leads with what holds the job back: the rank that failed, or the straggler and its own
bottleneck. It reads the job's facts only (facts/job.py), so `trainprobe report` on a saved job
says what the run said, and the verdict stays framed after the what-if re-ranks the findings."""

from __future__ import annotations

from dataclasses import replace

from ..findings import Diagnosis
from ..vocabulary import cause_of

__all__ = ["framed", "STRAGGLER_RULES"]

# The rules whose finding is the straggler itself: when one leads, the verdict's class is the
# straggler's own bottleneck (input, compute, host), not the communication the others spend waiting.
STRAGGLER_RULES = ("straggler-rank", "work-on-rank-0-alone")


def framed(diagnosis: Diagnosis) -> Diagnosis:
    """A job's verdict: the failed rank, or the straggler and its own bottleneck, leads the headline.
    Reads the job's facts only, so `trainprobe report` on a saved job says what the run said."""
    if diagnosis.job is None:
        return diagnosis
    facts = diagnosis.fact_values()
    verdict = diagnosis.verdict
    failed = facts.get("failed_rank")
    if failed is not None:
        return replace(diagnosis, verdict=replace(
            verdict, headline=f"rank {failed} failed ({facts.get('failed_error')}); {verdict.headline}"))
    straggler = facts.get("straggler_rank")
    if straggler is None:
        return diagnosis
    cause = facts.get("straggler_cause")
    kind = cause_of(str(cause)) if cause else ""
    verdict = replace(verdict, headline=f"rank {straggler} holds the job back ({kind or 'its own work'}): "
                                        f"{verdict.headline}")
    if kind and verdict.primary_finding in STRAGGLER_RULES and kind != verdict.category:
        # The resampled interval was of the communication class's share: not this class's.
        verdict = replace(verdict, category=kind, agreement=None, alternative=None, share_low=None,
                          share_high=None)
    return replace(diagnosis, verdict=verdict)
