"""Print a CheckResult: an aligned terminal checklist, or an HTML page from the templates."""

from __future__ import annotations

import textwrap
from typing import Any

from ..display import UNKNOWN, jinja_environment, nbytes, painter
from .results import FAIL, PASS, SKIP, VERDICT_TEXT, WARN, CheckResult, Grade

__all__ = ["render_text", "render_html", "environment_rows"]

_STYLES = {PASS: ("green",), WARN: ("yellow",), FAIL: ("red", "bold"), SKIP: ("dim",)}
_LABELS = {PASS: "PASS", WARN: "WARN", FAIL: "FAIL", SKIP: "skip"}


def _paint(text: str, status: str, color: bool) -> str:
    return painter(color)(text, *_STYLES[status])


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
        return UNKNOWN if v is None or v == "" else str(v)

    gpus = "; ".join(f"{g.index}: {g.name} {nbytes(g.memory_total)}" for g in e.gpus) or \
        (e.nvml.reason or "none")
    return [
        ("Python", show(e.python)), ("Platform", show(e.platform)), ("CPU", show(e.cpu_model)),
        ("Cores (logical / physical / usable)", f"{show(e.logical_cores)} / {show(e.physical_cores)} / {show(e.usable_cores)}"),
        ("RAM / swap / shm", f"{nbytes(e.ram_total)} / {nbytes(e.swap_total)} / {nbytes(e.shm_total)}"),
        ("torch", show(t.torch) if t.availability.available else show(t.availability.reason)),
        ("torch CUDA build", show(t.cuda_build)), ("cuDNN", show(t.cudnn)),
        ("torchvision", show(t.torchvision)), ("NVIDIA driver", show(e.driver)),
        ("Driver CUDA version", show(result.facts.cuda_driver)), ("GPUs (NVML)", gpus),
        ("Pillow", show(e.pillow)), ("libjpeg-turbo", show(e.libjpeg_turbo)),
    ]


def render_html(result: CheckResult) -> str:
    template = jinja_environment().get_template("check.html.j2")
    return template.render(r=result, grades=result.grades, counts=result.counts(),
                           verdict_text=VERDICT_TEXT.get(result.verdict, result.verdict),
                           env_rows=environment_rows(result), labels=_LABELS,
                           measurements={m.key: m for m in result.measurements})
