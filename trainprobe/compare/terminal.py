"""The table ``trainprobe compare`` prints: every run on a line, then each candidate's change and effect."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

from .. import display
from .compare import SLOW_IN_CLASS, Comparison
from .fail_if_slower import GateResult
from .views import finding_rows, headline, loss_text, phase_rows, run_row, setting_rows, slow_reason, throughput_unit

__all__ = ["comparison_text"]

_MAX_SETTINGS = 12  # settings listed on the terminal per candidate; the page lists all


def _table(c: Comparison, paint) -> list[str]:
    order = [c.run(label) for label in c.ranking] if c.class_view else list(c.runs)
    rows = [run_row(c, r) for r in order]
    width = max(12, *(len(r["label"]) for r in rows))
    unit = throughput_unit(c)
    lines = [paint(f"{'run':<{width}}  {'step time':>9}  {unit:>9}  {'MFU':>7}  {'speed-up (95% interval)':<24}  "
                   "verdict", "bold")]
    for r in rows:
        speed = r["speedup"] + (f" {r['conclusion']}" if r["conclusion"] else "")
        mark = []
        if r["slow"]:
            mark.append(paint("slow", "red"))
        if r["status"]:
            mark.append(paint(r["status"], "red"))
        tail = f"  [{', '.join(mark)}]" if mark else ""
        why = f": {r['why']}" if r["why"] else ""
        lines.append(f"{r['label']:<{width}}  {r['step_time']:>9}  {r['throughput']:>9}  {r['mfu_short']:>7}  "
                     f"{speed:<24}  {r['verdict']}{why}{tail}")
    return lines


def _wrapped(label: str, text: str) -> list[str]:
    return textwrap.wrap(text, width=110, initial_indent=f"  {label}: ", subsequent_indent="    ") or [f"  {label}:"]


def _candidate_lines(c: Comparison, cand, paint) -> list[str]:
    color = {"faster": "green", "slower": "red"}.get(cand.conclusion, "yellow")
    lines = ["", paint(headline(c, cand), "bold", color)]
    most = next((p for p in phase_rows(cand) if p["most"]), None)
    if most is not None:
        lines.append(f"  changed most: {most['phase']} {most['baseline']} → {most['candidate']} per step "
                     f"({most['delta']})")
    settings = setting_rows(cand)
    if settings:
        shown = [f"{s['label']} {s['baseline']} → {s['candidate']}" for s in settings[:_MAX_SETTINGS]]
        more = f"; and {len(settings) - _MAX_SETTINGS} more on the page" if len(settings) > _MAX_SETTINGS else ""
        lines += _wrapped("settings changed", "; ".join(shown) + more)
    else:
        lines.append("  settings changed: none that trainprobe records")
    found = finding_rows(c, cand)
    parts = [f"{what} {', '.join(f['id'] for f in rows) or 'none'}" for what, rows in found.items()]
    lines += _wrapped("findings", "; ".join(parts))
    for flag in cand.flags:
        lines += [paint(line, "yellow") for line in _wrapped("flag", flag)]
    if cand.learns_differently:
        lines += [paint(line, "red") for line in _wrapped("loss", loss_text(c, cand))]
    elif cand.learns_differently is False:
        lines += _wrapped("loss", loss_text(c, cand))
    return lines


def _class_lines(c: Comparison, paint) -> list[str]:
    """Who is slow, and why: each slow run's verdict; every candidate's details are on the page."""
    slow = [c.run(label) for label in c.ranking if c.run(label).slow_in_class]
    if not slow:
        return ["", f"No run is slow for this class (none takes {SLOW_IN_CLASS:g}× the median run's time or more)."]
    lines = [""]
    for run in slow:
        lines += [paint(line, "red") for line in _wrapped(f"{run.label} is slow", slow_reason(c, run))]
    return lines


def comparison_text(c: Comparison, gate_result: Optional[GateResult], page: Optional[Path], color: bool) -> str:
    paint = display.painter(color)
    title = (f"Class view: {len(c.runs)} runs, fastest first (baseline {c.baseline.label})" if c.class_view
             else f"Baseline: {c.baseline.label}")
    lines = [paint(title, "bold"), *_table(c, paint)]
    if c.class_view:
        lines += _class_lines(c, paint)
    else:
        for cand in c.candidates:
            lines += _candidate_lines(c, cand, paint)
    if c.notes:
        lines.append("")
        for note in c.notes:
            lines += textwrap.wrap(f"note: {note}", width=110, subsequent_indent="  ")
    if gate_result is not None:
        lines.append("")
        lines.append(paint(gate_result.message, "bold", "red" if gate_result.failed else "green"))
    if page is not None:
        lines += ["", f"Page: {paint(str(page), 'bold')}"]
    return "\n".join(lines)
