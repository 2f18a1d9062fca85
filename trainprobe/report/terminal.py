"""The few lines printed at the end of ``trainprobe diagnose``.

Colour follows :func:`trainprobe.display.use_color`.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

from ..engine.verdict import larger_lever_below
from ..findings import Diagnosis
from ..record import RunRecord
from .. import display
from .sections import CATEGORY_TEXT, STATUS_TEXT, exception_text, verdict_section

__all__ = ["terminal_summary"]

_SEVERITY_COLOR = {"critical": "red", "warning": "yellow", "info": "dim"}


def _one_line(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return textwrap.shorten(text, width=width, placeholder="…") if text else ""


_RULE_ERRORS_SHOWN = 5  # rule errors printed with their file:line; the report lists them all


def terminal_summary(record: RunRecord, diagnosis: Diagnosis, report_path: Optional[Path],
                     color: bool, top: int = 3) -> str:
    """Verdict, step time and throughput, the top findings with gain and advice, the report's path."""
    paint = display.painter(color)
    v = diagnosis.verdict
    verdict = verdict_section(diagnosis)
    lines = []
    outcome = record.outcome
    if outcome.status not in ("completed", "stopped") and record.profiler.source == "trace":
        # A trace is no run: what failed is reading it into steps (trace/record.py says why).
        why = outcome.reason or "the trace could not be split into steps"
        lines.append(paint(display.sentence(why), "bold", "red"))
    elif outcome.status not in ("completed", "stopped"):
        text = STATUS_TEXT.get(outcome.status, (outcome.status, ""))[0]
        code = f" (exit code {outcome.exit_code})" if outcome.exit_code is not None else ""
        lines.append(paint(f"The run {text}{code}.", "bold", "red"))
        exc = exception_text(outcome)
        if exc:
            lines.append("  " + _one_line(exc, 160))
    label = CATEGORY_TEXT.get(v.category, v.category)
    lines.append(f"{paint(label, 'bold', 'cyan')}: {v.headline}")
    numbers = [f"{label_} {value}" for label_, value, _ in verdict["numbers"] if value != display.UNKNOWN]
    if numbers:
        lines.append("  " + " · ".join(numbers))
    if outcome.status == "stopped" and outcome.left_unrun:  # a second training phase, never measured
        lines.append("  " + paint(_one_line(f"not run: {outcome.left_unrun}", 200),
                                  "yellow" if "trains again" in outcome.left_unrun else "dim"))
    if verdict.get("combined"):
        lines.append("  " + paint(_one_line("what-if: " + verdict["combined"], 160),
                                  "green" if verdict["combined_measured"] else "dim"))
    findings = diagnosis.findings
    if findings:
        lines.append("")
        lines.append(paint(f"Top findings ({min(top, len(findings))} of {len(findings)}):", "bold"))
    for i, f in enumerate(findings[:top], 1):
        sev = paint(f"[{f.severity}]", _SEVERITY_COLOR.get(f.severity, "dim"))
        gain = f.gain.text
        lines.append(f"  {i}. {sev} {f.title or f.id}" + (f"  {paint(gain, 'green')}" if gain else ""))
        lines.append(f"     {_one_line(f.message)}")
        if f.advice:
            where = f"{f.changes_at}: " if f.changes_at else ""  # the line the fix changes, as a linter names it
            lines.append(f"     → {where}{_one_line(f.advice)}")
        if f.verification is not None and f.verification.text:
            measured = f.verification.status == "measured"
            lines.append("     " + paint(_one_line(f.verification.text), "green" if measured else "dim"))
    lever = larger_lever_below(list(findings))
    if lever is not None:
        rank, f = lever
        lines.append(paint(f"  The largest estimated gain is finding {rank}, ranked below the warnings as information "
                           "(a lever worth knowing that its rule does not call what holds this run back):", "bold"))
        if rank > top:  # not shown above
            lines.append(f"  {rank}. {paint('[info]', 'dim')} {f.title or f.id}  {paint(f.gain.text, 'green')}")
            if f.advice:
                where = f"{f.changes_at}: " if f.changes_at else ""
                lines.append(f"     → {where}{_one_line(f.advice)}")
        else:
            lines.append(f"     {f.title or f.id}  {paint(f.gain.text, 'green')}")
    if not findings and outcome.status in ("completed", "stopped"):
        lines.append("No rule fired: nothing obvious holds this run back.")
    if diagnosis.rule_errors:
        lines.append(paint(f"{len(diagnosis.rule_errors)} rule file(s) could not be used (the other rules ran):",
                           "yellow"))
        for error in diagnosis.rule_errors[:_RULE_ERRORS_SHOWN]:
            lines.append("  " + paint(" ".join(error.split()), "yellow"))  # "path:line: problem", whole
        if len(diagnosis.rule_errors) > _RULE_ERRORS_SHOWN:
            lines.append(f"  … and {len(diagnosis.rule_errors) - _RULE_ERRORS_SHOWN} more in the report")
    if diagnosis.not_judged:
        lines.append(paint(f"{len(diagnosis.not_judged)} rule(s) could not be judged from a trace (it holds no "
                           "DataLoader, optimizer or machine settings); the report lists what each needs.", "dim"))
    if diagnosis.job is not None:  # a job: every rank side by side (report/job.py)
        from .job import terminal_lines

        lines.extend(terminal_lines(diagnosis))
    if report_path is not None:
        lines.append("")
        lines.append(f"Report: {paint(str(report_path), 'bold')}")
    return "\n".join(lines)
