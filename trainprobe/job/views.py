"""A job's ranks as the report and the terminal show them: every rank's step, side by side."""

from __future__ import annotations

from typing import Any

from .. import display
from ..record import RunRecord
from .analysis import CAUSES, PHASES

__all__ = ["job_section", "terminal_lines", "PHASE_LABELS"]

PHASE_LABELS = {"data_wait": "data wait", "h2d": "copy to device", "forward": "forward", "backward": "backward",
                "optimizer": "optimizer", "eval": "evaluation", "other": "loop's own code"}


def _ddp_rows(record: RunRecord) -> list[tuple[str, str]]:
    job = record.job
    ddp = job.ddp if job else None
    rows = [("backend", job.backend or display.UNKNOWN)] if job else []
    if ddp is None:
        return rows
    flag = lambda v: display.UNKNOWN if v is None else str(bool(v))
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


def job_section(record: RunRecord) -> dict[str, Any]:
    """The report's table of ranks for a job trainprobe ran or merged."""
    job = record.job
    phases = [p for p in PHASES if any(r.phases.get(p) for r in record.ranks)]
    rows = []
    for r in record.ranks:
        rows.append({
            "rank": "?" if r.rank is None else str(r.rank), "slowest": r.slowest, "steps": display.count(r.steps),
            "status": r.status or "", "error": r.error or "", "step_time": display.seconds(r.step_time),
            "phases": [display.seconds(r.phases.get(p)) for p in phases],
            "collectives": display.seconds(r.collective_time), "wait": display.seconds(r.collective_wait),
            "transfer": display.seconds(r.collective_transfer), "verdict": r.verdict,
            "batches": display.count(r.batches)})
    straggler = next((r for r in record.ranks if r.slowest), None)
    why = None
    if straggler is not None and straggler.why_slowest:
        kind = CAUSES.get(job.straggler_cause or "", ("", ""))[0] if job else ""
        why = (f"Rank {straggler.rank} is the straggler{f' ({kind})' if kind else ''}: {straggler.why_slowest}. "
               f"This report is rank {straggler.rank}'s.")
    failed = None
    if job and job.failed_rank is not None:
        failed = f"Rank {job.failed_rank} failed: {job.failed_error or 'see its record'}."
    return {"job": True, "who": _who(record), "rows": rows, "why": why, "failed": failed,
            "phases": [PHASE_LABELS.get(p, p) for p in phases], "ddp": _ddp_rows(record),
            "command": job.command_line if job else "", "nodes": list(job.nodes) if job else []}


def _who(record: RunRecord) -> str:
    return "rank" if record.job is None or record.job.launcher == "torchrun" else "trainer"


def terminal_lines(record: RunRecord) -> list[str]:
    lines = []
    who = _who(record)
    for r in record.ranks:
        parts = [f"step {display.seconds(r.step_time)}"]
        for p in ("data_wait", "forward", "backward", "optimizer", "other"):
            if r.phases.get(p):
                parts.append(f"{PHASE_LABELS[p]} {display.seconds(r.phases[p])}")
        if r.collective_time is not None:
            parts.append(f"collectives {display.seconds(r.collective_time)} (waiting {display.seconds(r.collective_wait)})")
        status = f" · {r.status}" if r.status not in (None, "completed", "stopped") else ""
        error = f" ({r.error})" if r.error else ""
        mark = "  ← straggler" if r.slowest else ""
        lines.append(f"  {who} {r.rank}: " + " · ".join(parts) + status + error + mark)
    straggler = next((r for r in record.ranks if r.slowest and r.why_slowest), None)
    if straggler is not None:
        lines.append(f"  straggler: {straggler.why_slowest}")
    return lines
