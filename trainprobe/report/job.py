"""A job's ranks as the report and the terminal show them: every rank's step side by side, and why
the straggler (or the slowest rank) is slower, in words, from the job's figures (facts/job.py)."""

from __future__ import annotations

from typing import Any, Optional

from .. import display
from ..figures import JobFigures, RankFigures
from ..findings import Diagnosis
from ..vocabulary import PHASE, PHASE_NAMES, cause_of

__all__ = ["job_section", "terminal_lines", "why_text"]

# A trace's GPU step, part by part (facts/device.py), in words for the "why" sentence.
_DEVICE_DOING = {
    "device_compute_share": "computing",
    "device_copy_share": "copying memory",
    "exposed_communication_share": "in communication nothing overlaps",
    "gpu_idle_data_share": "idle while its host fetched data",
    "gpu_idle_sync_share": "idle while its host waited in syncs",
    "gpu_idle_host_share": "idle while its host ran its own code",
    "gpu_idle_launch_share": "idle in the launch path",
    "gpu_idle_dependency_share": "idle with work queued behind other work (a peer, another stream)",
}


def _who(job: JobFigures) -> str:
    return "trainer" if job.launcher == "torch.multiprocessing" else "rank"


def _plural(n: int, word: str) -> str:
    return word + ("s" if n != 1 else "")


def why_text(job: JobFigures) -> Optional[str]:
    """Why the straggler (or, without one, the slowest rank) is slower: its part of the step beyond the
    other ranks' mean, and how long the others wait for it."""
    lead = job.straggler if job.straggler is not None else job.slowest
    if lead is None or job.cause is None or job.cause_seconds is None or job.others_seconds is None:
        return None
    others = sum(1 for r in job.ranks if r.rank != lead and r.step_time)
    who, theirs = _who(job), f"the other {_plural(others, _who(job))}"
    if job.cause in PHASE:
        text = (f"{who} {lead} spends {display.seconds(job.cause_seconds)} per step {PHASE[job.cause].doing}, "
                f"against {display.seconds(job.others_seconds)} on {theirs}")
    else:
        row = job.row(lead)
        mean_other = [r.step_time for r in job.ranks if r.rank != lead and r.step_time]
        text = (f"its steps take {display.seconds(row.step_time if row else None)} against "
                f"{display.seconds(sum(mean_other) / len(mean_other) if mean_other else None)} on {theirs}; its "
                f"GPU spends {display.seconds(job.excess)} more per step {_DEVICE_DOING.get(job.cause, job.cause)} "
                "than theirs do on average")
    if job.straggler is not None and job.waited_for:
        text += (f"; {theirs} wait{'' if others > 1 else 's'} {display.seconds(job.waited_for)} per step for it in "
                 "collectives")
    return text


def _ddp_rows(job: JobFigures) -> list[tuple[str, str]]:
    ddp = job.ddp
    rows = [("backend", job.backend or display.UNKNOWN)] if job.launcher == "torchrun" else []
    if ddp is None:
        return rows
    flag = lambda v: display.UNKNOWN if v is None else str(bool(v))  # noqa: E731
    rows += [("bucket_cap_mb", display.UNKNOWN if ddp.bucket_cap_mb is None else f"{ddp.bucket_cap_mb:g}"),
             ("gradient_as_bucket_view", flag(ddp.gradient_as_bucket_view)),
             ("static_graph", flag(ddp.static_graph)),
             ("find_unused_parameters", flag(ddp.find_unused_parameters)
              + (f" (costs {display.seconds(ddp.post_forward_time)} per forward)" if ddp.find_unused_parameters
                 and ddp.post_forward_time is not None else "")),
             ("broadcast_buffers", flag(ddp.broadcast_buffers))]
    if ddp.unused_parameter_bytes is not None:
        rows.append(("unused parameters", display.nbytes(ddp.unused_parameter_bytes)))
    return rows


def _phases(job: JobFigures) -> list[str]:
    return [p for p in PHASE_NAMES if any(r.phases.get(p) for r in job.ranks)]


def _mark(job: JobFigures, row: RankFigures) -> str:
    return "straggler" if row.straggler else "slowest" if row.slowest and job.straggler is None else ""


def job_section(diagnosis: Diagnosis) -> dict[str, Any]:
    """The report's table of every rank of a job; empty for a single run."""
    job = diagnosis.job
    if job is None:
        return {}
    phases = _phases(job)
    timed = any(r.collective_time is not None for r in job.ranks)
    traces = any(r.device_parts for r in job.ranks)
    rows = [{
        "rank": "?" if r.rank is None else str(r.rank), "mark": _mark(job, r), "steps": display.count(r.steps),
        "steady": display.count(r.steady_steps), "status": r.status or "", "error": r.error or "",
        "step_time": display.seconds(r.step_time), "phases": [display.seconds(r.phases.get(p)) for p in phases],
        "device": [display.seconds(r.device_parts.get(name)) for name in _DEVICE_DOING] if traces else [],
        "collectives": display.seconds(r.collective_time), "wait": display.seconds(r.collective_wait),
        "transfer": display.seconds(r.collective_transfer), "verdict": r.verdict,
        "batches": display.count(r.batches), "files": ", ".join(f.rsplit("/", 1)[-1] for f in r.files)}
        for r in job.ranks]
    why = why_text(job)
    lead = job.straggler if job.straggler is not None else job.slowest
    if why is not None:
        kind = f" ({cause_of(job.cause)})" if job.straggler is not None and job.cause in PHASE else ""
        title = "the straggler" if job.straggler is not None else "the slowest"
        why = f"{_who(job).capitalize()} {lead} is {title}{kind}: {why}."
    return {"job": True, "who": _who(job), "rows": rows, "why": why,
            "lead": f"This report is {_who(job)} {job.subject}'s ({job.subject_why})." if job.subject is not None else "",
            "failed": f"Rank {job.failed_rank} failed: {job.failed_error or 'see its record'}."
            if job.failed_rank is not None else None,
            "phases": [PHASE[p].label for p in phases], "collectives": timed,
            "device": [words for words in _DEVICE_DOING.values()] if traces else [],
            "ddp": _ddp_rows(job), "command": job.command_line, "nodes": list(job.nodes),
            "base": display.seconds(job.step_time)}


def terminal_lines(diagnosis: Diagnosis) -> list[str]:
    job = diagnosis.job
    if job is None:
        return []
    lines = []
    who = _who(job)
    for r in job.ranks:
        parts = [f"step {display.seconds(r.step_time)}"]
        for p in _phases(job):
            if r.phases.get(p) and p not in ("h2d", "eval", "debug"):
                parts.append(f"{PHASE[p].label} {display.seconds(r.phases[p])}")
        if r.collective_time is not None:
            parts.append(f"collectives {display.seconds(r.collective_time)} (waiting {display.seconds(r.collective_wait)})")
        status = f" · {r.status}" if r.status not in (None, "completed", "stopped") else ""
        error = f" ({r.error})" if r.error else ""
        mark = f"  ← {_mark(job, r)}" if _mark(job, r) else ""
        lines.append(f"  {who} {'?' if r.rank is None else r.rank}: " + " · ".join(parts) + status + error + mark)
    why = why_text(job)
    if why is not None:
        lines.append(f"  {'straggler' if job.straggler is not None else 'slowest'}: {why}")
    return lines
