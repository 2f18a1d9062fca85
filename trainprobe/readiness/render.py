"""Print a CheckResult: an aligned terminal checklist, or an HTML page from the templates."""

from __future__ import annotations

import os
import textwrap
from typing import Any, Optional, TextIO

from ..resources import templates_dir
from .fmt import fmt_bytes
from .results import FAIL, PASS, SKIP, VERDICT_TEXT, WARN, CheckResult, Grade

__all__ = ["use_color", "render_text", "render_html", "jinja_env", "environment_rows"]

_COLORS = {PASS: "32", WARN: "33", FAIL: "31;1", SKIP: "2"}
_LABELS = {PASS: "PASS", WARN: "WARN", FAIL: "FAIL", SKIP: "skip"}


def use_color(stream: Optional[TextIO]) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(stream is not None and getattr(stream, "isatty", lambda: False)())


def _paint(text: str, status: str, color: bool) -> str:
    return f"\033[{_COLORS[status]}m{text}\033[0m" if color else text


def _grade_lines(g: Grade, color: bool, width: int) -> list[str]:
    label = _paint(f"{_LABELS.get(g.status, g.status):4}", g.status, color)
    title = g.title + (" *" if g.required else "")
    indent = " " * 8
    need = f"need {g.threshold}" if g.threshold and g.status != SKIP else ""
    if len(g.measured) <= 44:
        lines = [f"  {label}  {title:<30} {g.measured:<44} {need}".rstrip()]
    else:  # a long value gets the line to itself; the threshold goes underneath
        lines = [f"  {label}  {title:<30} {g.measured}"]
        if need:
            lines.append(f"{indent}{' ' * 31}{need}")
    for prefix, text in (("", g.note), ("fix: ", g.fix)):
        if text and (g.status in (WARN, FAIL) or prefix == ""):
            if g.status == SKIP and text == g.measured:
                continue
            lines += textwrap.wrap(prefix + text, width=width, initial_indent=indent,
                                   subsequent_indent=indent + " " * len(prefix))
    return lines


def render_text(result: CheckResult, color: bool = False, width: int = 100) -> str:
    course = f' for course "{result.course}"' if result.course else ""
    out = [f"trainprobe check ({result.mode}){course}: {result.name}, machine {result.hostname_hash or '?'}",
           ""]
    for g in result.grades:
        out += _grade_lines(g, color, width)
    counts = result.counts()
    out.append("")
    if any(g.required for g in result.grades):
        out.append("  * required by the course's expect file")
    verdict = _paint(VERDICT_TEXT.get(result.verdict, result.verdict),
                     {0: PASS, 1: WARN}.get(result.exit_code, FAIL), color)
    out.append(f"{verdict}: {counts[PASS]} pass, {counts[WARN]} warn, {counts[FAIL]} fail, "
               f"{counts[SKIP]} skipped ({result.duration:.1f} s, exit code {result.exit_code})")
    return "\n".join(out) + "\n"


def environment_rows(result: CheckResult) -> list[tuple[str, str]]:
    """Machine facts for the HTML page, in the style of torch.utils.collect_env."""
    e, t = result.facts.environment, result.facts.torch

    def show(v: Any) -> str:
        return "Could not collect" if v is None or v == "" else str(v)

    gpus = "; ".join(f"{g.index}: {g.name} {fmt_bytes(g.memory_total)}" for g in e.gpus) or \
        (e.nvml.reason or "none")
    return [
        ("Python", show(e.python)), ("Platform", show(e.platform)), ("CPU", show(e.cpu_model)),
        ("Cores (logical / physical / usable)", f"{show(e.logical_cores)} / {show(e.physical_cores)} / {show(e.usable_cores)}"),
        ("RAM / swap / shm", f"{fmt_bytes(e.ram_total)} / {fmt_bytes(e.swap_total)} / {fmt_bytes(e.shm_total)}"),
        ("torch", show(t.torch) if t.availability.available else show(t.availability.reason)),
        ("torch CUDA build", show(t.cuda_build)), ("cuDNN", show(t.cudnn)),
        ("torchvision", show(t.torchvision)), ("NVIDIA driver", show(e.driver)),
        ("Driver CUDA version", show(result.facts.cuda_driver)), ("GPUs (NVML)", gpus),
        ("Pillow", show(e.pillow)), ("libjpeg-turbo", show(e.libjpeg_turbo)),
    ]


def jinja_env():  # type: ignore[no-untyped-def]
    import jinja2
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())),
                              autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def render_html(result: CheckResult) -> str:
    template = jinja_env().get_template("check.html.j2")
    return template.render(r=result, grades=result.grades, counts=result.counts(),
                           verdict_text=VERDICT_TEXT.get(result.verdict, result.verdict),
                           env_rows=environment_rows(result), labels=_LABELS,
                           measurements={m.key: m for m in result.measurements})
