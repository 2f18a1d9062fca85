"""The class summary: many saved check results -> one HTML page and a short terminal table."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from ..display import jinja_environment, nbytes
from .results import CHECK_KIND, FAIL, NOT_READY, READY, VERDICT_TEXT, WARN, WARNINGS, CheckResult

__all__ = ["LoadProblem", "SummaryRow", "ClassSummary", "load_results", "summarize",
           "render_summary_text", "render_summary_html"]

_ORDER = {NOT_READY: 0, WARNINGS: 1, READY: 2}


@dataclass(frozen=True)
class LoadProblem:
    path: str
    error: str


@dataclass(frozen=True)
class SummaryRow:
    name: str
    verdict: str
    verdict_text: str
    gpu: str
    benchmark: str
    reasons: tuple[dict[str, str], ...]  # {"status", "text"}, failures first
    machine: str
    checked: str
    mode: str
    path: str
    fails: int = 0
    warns: int = 0


@dataclass(frozen=True)
class ClassSummary:
    rows: tuple[SummaryRow, ...] = ()
    problems: tuple[LoadProblem, ...] = ()
    course: str = ""
    totals: dict[str, int] = field(default_factory=dict)
    issues: tuple[dict[str, object], ...] = ()  # most common non-passing items


def load_results(paths: list[str]) -> tuple[list[tuple[str, CheckResult]], list[LoadProblem]]:
    """Read saved results; a bad file becomes a LoadProblem naming it, the rest still load."""
    results, problems = [], []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            if not isinstance(data, dict) or data.get("kind") != CHECK_KIND:
                raise ValueError("not a trainprobe check result (save one with `trainprobe check --save FILE`)")
            results.append((path, CheckResult.from_dict(data)))
        except FileNotFoundError:
            problems.append(LoadProblem(path, "file not found"))
        except json.JSONDecodeError as exc:
            problems.append(LoadProblem(path, f"not valid JSON ({exc.msg}, line {exc.lineno})"))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            problems.append(LoadProblem(path, str(exc) or type(exc).__name__))
    return results, problems


def _gpu_text(r: CheckResult) -> str:
    gpus = r.facts.environment.gpus
    if gpus:
        g = gpus[0]
        more = f" (+{len(gpus) - 1})" if len(gpus) > 1 else ""
        return f"{g.name} {nbytes(g.memory_total)}{more}"
    if r.facts.torch.devices:
        d = r.facts.torch.devices[0]
        return f"{d.name} {nbytes(d.memory_total)}"
    return "none"


def _row(path: str, r: CheckResult) -> SummaryRow:
    bad = sorted((g for g in r.grades if g.status in (FAIL, WARN)), key=lambda g: g.status != FAIL)
    reasons = tuple({"status": g.status, "text": f"{g.title}: {g.note or g.measured}"} for g in bad)
    bench = next((g.measured for g in r.grades if g.key == "train_benchmark"), None)
    return SummaryRow(
        name=r.name or "(no name)", verdict=r.verdict, verdict_text=VERDICT_TEXT.get(r.verdict, r.verdict),
        gpu=_gpu_text(r), benchmark=bench or ("not run (--quick)" if r.mode == "quick" else "—"),
        reasons=reasons, machine=r.hostname_hash or "?", checked=r.created_at[:16].replace("T", " "),
        mode=r.mode, path=path, fails=sum(g.status == FAIL for g in bad),
        warns=sum(g.status == WARN for g in bad))


def summarize(results: list[tuple[str, CheckResult]], problems: Optional[list[LoadProblem]] = None) -> ClassSummary:
    rows = sorted((_row(p, r) for p, r in results),
                  key=lambda row: (_ORDER.get(row.verdict, 0), -row.fails, -row.warns, row.name.lower()))
    counter: Counter[str] = Counter()
    fixes: dict[str, tuple[str, Optional[str]]] = {}
    for _p, r in results:
        for g in r.grades:
            if g.status in (FAIL, WARN):
                counter[g.key] += 1
                fixes.setdefault(g.key, (g.title, g.fix))
    issues = tuple({"title": fixes[k][0], "fix": fixes[k][1], "count": n} for k, n in counter.most_common(8))
    courses = {r.course for _p, r in results if r.course}
    totals = {v: sum(row.verdict == v for row in rows) for v in (READY, WARNINGS, NOT_READY)}
    return ClassSummary(rows=tuple(rows), problems=tuple(problems or ()),
                        course=", ".join(sorted(courses)), totals=totals, issues=issues)


def render_summary_text(s: ClassSummary, width: int = 100) -> str:
    lines = [f"{'Name':<20} {'Status':<20} {'GPU':<24} Why"]
    for row in s.rows:
        why = row.reasons[0]["text"] if row.reasons else ""
        if len(row.reasons) > 1:
            why += f" (+{len(row.reasons) - 1} more)"
        line = f"{row.name[:20]:<20} {row.verdict_text:<20} {row.gpu[:24]:<24} {why}"
        lines.append(line if len(line) <= width else line[:width - 1] + "…")
    for p in s.problems:
        lines.append(f"could not read {p.path}: {p.error}")
    t = s.totals
    lines.append(f"{t.get(READY, 0)} ready, {t.get(WARNINGS, 0)} ready with warnings, "
                 f"{t.get(NOT_READY, 0)} not ready" + (f", {len(s.problems)} unreadable" if s.problems else ""))
    return "\n".join(lines) + "\n"


def render_summary_html(s: ClassSummary) -> str:
    return jinja_environment().get_template("class_summary.html.j2").render(
        rows=s.rows, problems=s.problems, course=s.course, totals=s.totals, issues=s.issues)
