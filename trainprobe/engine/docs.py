"""Rules and facts as text for people: ``trainprobe rules list``, ``explain`` and ``facts``."""

from __future__ import annotations

import re
import textwrap
from typing import Iterable

from ..facts import FACT_CATALOG
from .rule import Rule

__all__ = ["rule_list_text", "rule_docs_text", "fact_catalog_text", "fact_catalog_markdown"]

_WIDTH = 88


def rule_list_text(rules: Iterable[Rule]) -> str:
    """One line per rule: id, category, severity, name; sorted by category then id."""
    rows = sorted(rules, key=lambda r: (r.category, r.id))
    if not rows:
        return "No rules found."
    width = max(len(r.id) for r in rows)
    lines = [f"{'ID':<{width}}  {'CATEGORY':<13}  {'SEVERITY':<8}  NAME"]
    for r in rows:
        gpu = " (GPU runs)" if r.gpu_only else ""
        lines.append(f"{r.id:<{width}}  {r.category:<13}  {r.severity:<8}  {r.name}{gpu}")
    lines.append("")
    lines.append(f"{len(rows)} rules. `trainprobe rules explain ID` shows a rule's documentation.")
    return "\n".join(lines)


def _section(title: str, body: str) -> list[str]:
    out = [title]
    for paragraph in body.strip().split("\n\n"):
        lines = paragraph.splitlines()
        if all(line.lstrip().startswith("- ") for line in lines if line.strip()):
            for line in lines:  # keep lists as lists
                out.append(textwrap.fill(line.strip(), _WIDTH, initial_indent="  ",
                                         subsequent_indent="    ", break_on_hyphens=False))
        else:
            out.append(textwrap.fill(" ".join(line.strip() for line in lines), _WIDTH,
                                     initial_indent="  ", subsequent_indent="  ",
                                     break_on_hyphens=False))
        out.append("")
    return out


def _fix_text(rule: Rule) -> str:
    if rule.fix_id is None:
        return "none (the fix needs an edit to the script)"
    from ..whatif.fixes import REGISTRY

    source = rule.fix_id.source.strip()
    names = [n for n in re.findall(r"'([a-z0-9_]+)'", source)] if "{" in source else [source]
    if not names:
        return source
    shown = [n if n in REGISTRY and REGISTRY[n].injectable else f"{n} (advice only)" for n in names]
    return " or ".join(shown) + (" (depends on the run)" if "{" in source else "")


def rule_docs_text(rule: Rule) -> str:
    """The rule's documentation: every docs section, then its condition and options."""
    fix = _fix_text(rule)
    lines = [
        f"{rule.id}: {rule.name}",
        f"category: {rule.category}   severity: {rule.severity}"
        f"{'   GPU runs only' if rule.gpu_only else ''}   what-if fix: {fix}",
        f"file: {rule.source}",
        "",
    ]
    docs = rule.docs
    lines += _section("What it does", docs.what)
    lines += _section("Why it matters", docs.why)
    lines += _section("Evidence", docs.evidence)
    lines += _section("What to do", docs.fix)
    lines += _section("Options", docs.options)
    lines.append("References")
    lines += [f"  - {ref}" for ref in docs.references]
    lines += ["", "Condition", textwrap.indent(rule.condition.source, "  ")]
    for severity, expression in rule.severity_when:
        lines.append(f"  {severity} when: {expression.source}")
    if rule.gain is not None:
        lines += ["", "Estimated gain (seconds per step)", textwrap.indent(rule.gain.source, "  ")]
    if rule.variants:
        lines += ["", "The fix in a framework's terms (else plain PyTorch)"]
        lines += [f"  {v.name}" + (f" when {v.when.source}" if v.when is not None else "") for v in rule.variants]
    if rule.options:
        lines += ["", "Option values"]
        shared = f"  (shared set {rule.options_from})"
        lines += [f"  {name} = {value!r}" + (shared if name in rule.shared_options else "")
                  for name, value in rule.options.items()]
    return "\n".join(lines).rstrip() + "\n"


def fact_catalog_text() -> str:
    """Every fact: name, unit, family and meaning, grouped by family."""
    lines: list[str] = []
    family = None
    for spec in FACT_CATALOG.values():
        if spec.family != family:
            family = spec.family
            lines += ["", f"[{family}]"] if lines else [f"[{family}]"]
        lines.append(f"  {spec.name} ({spec.unit})")
        lines.append(textwrap.fill(spec.meaning, _WIDTH, initial_indent="      ",
                                   subsequent_indent="      "))
    return "\n".join(lines) + "\n"


def fact_catalog_markdown() -> str:
    """The facts as Markdown tables by family: the Facts section of rules/README.md is this text,
    generated (`trainprobe rules facts --markdown`), so the docs cannot drift from the catalog."""
    lines: list[str] = []
    family = None
    for spec in FACT_CATALOG.values():
        if spec.family != family:
            family = spec.family
            lines += ["", f"### {family}", "", "| fact | unit | meaning |", "|---|---|---|"]
        lines.append(f"| `{spec.name}` | {spec.unit} | {spec.meaning} |")
    return "\n".join(lines).lstrip("\n") + "\n"
