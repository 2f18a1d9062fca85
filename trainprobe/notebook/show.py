"""What a live probe shows in a notebook: one progress line, then the verdict and a link to the report.

In a Jupyter (or Colab) kernel the progress is one output line updated in place (a display with an
id), and the result is a compact view (HTML, with plain text beside it for consoles and for
``nbconvert``). Nothing is coloured: a cell's output is no terminal. Outside a kernel (an IPython
terminal, plain python) the progress line is rewritten on stderr and the summary is printed.
"""

from __future__ import annotations

import html
import os
import sys
import time
from typing import Any, Optional

from .kernel import current_shell as _shell

__all__ = ["ProgressLine", "show_result", "compact_html", "compact_text", "in_kernel"]

_TOP = 3  # findings shown inline; the report has them all


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (outputs go to a notebook, not a terminal)."""
    shell = _shell()
    return shell is not None and getattr(shell, "kernel", None) is not None


class ProgressLine:
    """One line of progress, replaced by each update."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.kernel = enabled and in_kernel()
        self._handle: Any = None
        self._width = 0
        self._started = time.monotonic()

    def update(self, text: str) -> None:
        if not self.enabled:
            return
        if self.kernel:
            from IPython.display import display

            bundle = {"text/plain": text}
            if self._handle is None:
                self._handle = display(bundle, raw=True, display_id=True)
            else:
                self._handle.update(bundle, raw=True)
            return
        sys.stderr.write("\r" + text.ljust(self._width))
        sys.stderr.flush()
        self._width = len(text)

    def close(self) -> None:
        if not self.enabled:
            return
        if self.kernel:
            if self._handle is not None:
                self.update(f"trainprobe: done in {time.monotonic() - self._started:.1f} s")
        elif self._width:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _link(path: Optional[os.PathLike]) -> Optional[str]:
    """The report's path as a link the notebook's server can follow: relative to the kernel's folder
    (the notebook's), when it is under it."""
    if path is None:
        return None
    full = os.path.abspath(path)
    relative = os.path.relpath(full, os.getcwd())
    return full if relative.startswith("..") else relative


def compact_text(result) -> str:
    from ..report import terminal_summary

    text = terminal_summary(result.record, result.diagnosis, result.report_path, color=False)
    problems = "".join(f"\ntrainprobe: {p}" for p in result.problems)
    return text + problems


def compact_html(result) -> str:
    """The verdict, the step's figures and the top findings, with a link to the full report."""
    from .. import display
    from ..report.sections import CATEGORY_TEXT, STATUS_TEXT, verdict_section

    record, diagnosis = result.record, result.diagnosis
    verdict = verdict_section(diagnosis)
    esc = html.escape
    parts = ['<div class="trainprobe" style="font-family: sans-serif; line-height: 1.4">']
    outcome = record.outcome
    if outcome.status not in ("completed", "stopped"):
        text = STATUS_TEXT.get(outcome.status, (outcome.status, ""))[0]
        parts.append(f"<div><b>The code {esc(text)}.</b> {esc(outcome.reason or '')}</div>")
    label = CATEGORY_TEXT.get(diagnosis.verdict.category, diagnosis.verdict.category)
    parts.append(f"<div><b>{esc(label)}</b>: {esc(diagnosis.verdict.headline)}</div>")
    numbers = [f"{name} {value}" for name, value, _ in verdict["numbers"] if value != display.UNKNOWN]
    if numbers:
        parts.append(f"<div style='color: #555'>{esc(' · '.join(numbers))}</div>")
    if diagnosis.findings:
        items = []
        for f in diagnosis.findings[:_TOP]:
            gain = f" <i>{esc(f.gain.text)}</i>" if f.gain.text else ""
            items.append(f"<li>[{esc(f.severity)}] <b>{esc(f.title or f.id)}</b>{gain}<br>{esc(f.message)}</li>")
        more = len(diagnosis.findings) - _TOP
        parts.append("<ol>" + "".join(items) + "</ol>" + (f"<div>… and {more} more in the report</div>" if more > 0 else ""))
    for problem in result.problems:
        parts.append(f"<div>trainprobe: {esc(problem)}</div>")
    link = _link(result.report_path)
    if link:
        parts.append(f'<div><a href="{esc(link)}" target="_blank">Full report</a> ({esc(link)})</div>')
    parts.append("</div>")
    return "".join(parts)


def show_result(result) -> None:
    """The result in the cell's output (a kernel), or printed (anywhere else)."""
    if _shell() is not None:
        from IPython.display import display

        display({"text/plain": compact_text(result), "text/html": compact_html(result)}, raw=True)
        return
    from ..display import use_color
    from ..report import terminal_summary

    print(terminal_summary(result.record, result.diagnosis, result.report_path, color=use_color(sys.stdout)))
    for problem in result.problems:
        print(f"trainprobe: {problem}", file=sys.stderr)
