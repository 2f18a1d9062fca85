"""``trainprobe check``'s work: measure and grade this machine and write what was asked for; and
``check-summary``'s: one page for a class from the results its students saved.

The measuring and grading live in trainprobe/readiness/; this module runs them and writes the
files, so a file that cannot be written costs the user a line, not the checklist they waited for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from ..jsonio import write_problem, write_text_atomic
from .outputs import TrainprobeError

if TYPE_CHECKING:  # the CLI imports the api at start-up without loading the readiness check
    from ..readiness import CheckResult
    from ..readiness.progress import Progress
    from ..readiness.summary import ClassSummary

__all__ = ["CheckRun", "ClassPage", "check", "check_summary"]


@dataclass(frozen=True)
class CheckRun:
    result: "CheckResult"  # the measurements, their grades and the verdict
    saved: Optional[Path] = None  # the result as JSON (``save_path``), when written
    page: Optional[Path] = None  # the HTML page (``html_path``), when written
    problems: tuple[str, ...] = ()  # files that could not be written, in words


@dataclass(frozen=True)
class ClassPage:
    summary: "ClassSummary"  # a row per readable result; the unreadable files among its problems
    page: Optional[Path] = None  # the class page; None when nothing was readable or it could not be written
    problems: tuple[str, ...] = ()  # files that could not be written, in words


def _write(path: Optional[str | os.PathLike], text: str, what: str, problems: list[str]) -> Optional[Path]:
    if path is None:
        return None
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        problems.append(f"the {what} could not be written: {write_problem(path, exc)}")
        return None
    return Path(path)


def check(quick: bool = False, data_dir: Optional[str | os.PathLike] = None,
          expect_file: Optional[str | os.PathLike] = None, name: Optional[str] = None,
          save_path: Optional[str | os.PathLike] = None, html_path: Optional[str | os.PathLike] = None,
          progress: Optional["Progress"] = None) -> CheckRun:
    """Measure this machine (``quick``: seconds, no benchmarks), grade it against ``expect_file``'s
    requirements (TOML) or the defaults, and write the result as JSON and as a page where asked.
    Raises TrainprobeError for an ``expect_file`` it cannot use, before anything is measured."""
    from ..readiness import ExpectError, load_expectations, render_html, run_check

    expectations = None
    if expect_file:
        try:
            expectations = load_expectations(str(expect_file))
        except ExpectError as exc:
            raise TrainprobeError(str(exc)) from None
    result = run_check(quick=quick, data_dir=str(data_dir) if data_dir else None, expectations=expectations,
                       name=name, progress=progress)
    problems: list[str] = []
    saved = _write(save_path, result.to_json(indent=2) + "\n", "result", problems)
    page = _write(html_path, render_html(result), "HTML page", problems)
    return CheckRun(result, saved, page, tuple(problems))


def check_summary(results: Sequence[str | os.PathLike], output: str | os.PathLike = "class.html") -> ClassPage:
    """One page for a class from saved ``check`` results: a file that cannot be read is listed and the
    others still make the page; with none readable, nothing is written."""
    from ..readiness import load_results, render_summary_html, summarize

    loaded, unreadable = load_results([str(r) for r in results])
    summary = summarize(loaded, unreadable)
    if not loaded:
        return ClassPage(summary)
    problems: list[str] = []
    page = _write(output, render_summary_html(summary), "class summary", problems)
    return ClassPage(summary, page, tuple(problems))
