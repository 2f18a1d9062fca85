"""A rule loaded from its TOML file, with every expression and template compiled."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..findings import RuleDocs
from .expr import Expression, Template

__all__ = ["Rule", "EvidenceSpec", "REQUIRED_KEYS", "OPTIONAL_KEYS", "DOC_SECTIONS",
           "TEMPLATE_NAMES"]

REQUIRED_KEYS = ("id", "name", "category", "severity", "condition", "title", "message",
                 "advice", "docs")
OPTIONAL_KEYS = ("snippet", "gain", "gain_base", "fix_id", "severity_when", "options", "evidence",
                 "gpu_only", "without_steps", "after")
DOC_SECTIONS = ("what", "why", "evidence", "fix", "options", "references")

# Names templates may use besides facts and options: the gain, once computed.
TEMPLATE_NAMES = ("gain_seconds", "speedup", "severity")
# Names severity_when may use besides facts and options: the gain is computed before the severity, so
# that a fix's severity can follow what it recovers (engine/evaluate.py).
SEVERITY_NAMES = ("gain_seconds", "speedup")


@dataclass(frozen=True)
class EvidenceSpec:
    fact: str
    label: str
    threshold: Optional[Template] = None


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    category: str
    severity: str
    condition: Expression
    title: Template
    message: Template
    advice: Template
    docs: RuleDocs
    source: str  # the rule file
    snippet: Optional[Template] = None
    gain: Optional[Expression] = None  # seconds per step the fix recovers
    gain_base: Optional[Expression] = None  # the step time the gain is part of (default: median)
    fix_id: Optional[Template] = None  # a template: the fix may depend on the facts
    severity_when: tuple[tuple[str, Expression], ...] = ()  # checked in order, first true wins
    options: dict[str, Any] = field(default_factory=dict)
    evidence: tuple[EvidenceSpec, ...] = ()
    gpu_only: bool = False  # never fires on a run that did not use CUDA
    without_steps: bool = False  # may fire on a run with no measured step (settings, OOM)
    after: Optional[str] = None  # the rule whose fix comes first: when it leads, this one follows it
    line: int = 1  # line of the condition, for errors at evaluation time
    lines: dict[str, int] = field(default_factory=dict)  # line of each key (message, advice, ...) in its file

    def line_of(self, key: str) -> int:
        return self.lines.get(key, self.line)
