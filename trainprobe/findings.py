"""What the rule engine makes of a run record: facts, findings and the verdict.

``RunRecord`` (measured) → ``Fact`` (named values with units) → ``Finding``
(one rule that fired, with its evidence and advice) → ``Diagnosis`` (the
verdict and the ranked findings), which the report renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from .jsonio import JsonMixin

__all__ = [
    "SEVERITIES",
    "CATEGORIES",
    "Fact",
    "Evidence",
    "Gain",
    "Verification",
    "RuleDocs",
    "Finding",
    "Verdict",
    "Diagnosis",
]

SEVERITIES = ("info", "warning", "critical")  # ascending

# The verdict's classes. They come from the step-time split, so they add up
# to the step (as torch-tb-profiler's ordered categories did).
CATEGORIES = ("input", "host", "launch", "sync", "copy", "compute", "memory", "communication")

FactValue = Union[bool, int, float, str, None]


@dataclass(frozen=True)
class Fact(JsonMixin):
    name: str
    value: FactValue
    unit: str = ""  # s, bytes, share, percent, count, per_step, x, bool, text
    family: str = ""
    description: str = ""


@dataclass(frozen=True)
class Evidence(JsonMixin):
    """One number behind a finding, with the threshold it was compared to."""

    label: str
    value: str  # formatted for people
    threshold: Optional[str] = None
    fact: Optional[str] = None  # the fact name it comes from


@dataclass(frozen=True)
class Gain(JsonMixin):
    """An estimate of what the fix recovers (from the measurements, not a promise)."""

    seconds_per_step: Optional[float] = None
    speedup: Optional[float] = None  # step-time ratio before/after, e.g. 2.5
    text: str = ""  # "about 2.5× faster steps"


@dataclass(frozen=True)
class Verification(JsonMixin):
    """The what-if: the fix applied at run time and measured on the user's script."""

    status: str = "not_run"  # measured, no_gain, not_injectable, failed, not_run
    speedup: Optional[float] = None  # median ratio of steps/s, fix vs baseline
    low: Optional[float] = None
    high: Optional[float] = None
    n: int = 0
    text: str = ""
    loss_baseline: tuple[float, ...] = ()
    loss_fix: tuple[float, ...] = ()


@dataclass(frozen=True)
class RuleDocs(JsonMixin):
    what: str = ""
    why: str = ""
    evidence: str = ""
    fix: str = ""
    options: str = ""
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding(JsonMixin):
    id: str
    name: str
    category: str
    severity: str
    title: str
    message: str  # the problem, with the numbers that tripped it
    advice: str  # the action
    snippet: str = ""  # code for the user's case
    evidence: tuple[Evidence, ...] = ()
    gain: Gain = field(default_factory=Gain)
    docs: RuleDocs = field(default_factory=RuleDocs)
    fix_id: Optional[str] = None  # what-if fix that can be injected at run time
    verification: Optional[Verification] = None
    source: str = ""  # rule file the finding came from


@dataclass(frozen=True)
class Verdict(JsonMixin):
    category: str  # one of CATEGORIES, or "unknown" when no step was measured
    headline: str  # one plain sentence
    step_time: Optional[float] = None  # mean steady step (the step_time fact), seconds
    steps_per_second: Optional[float] = None
    samples_per_second: Optional[float] = None
    breakdown: dict[str, float] = field(default_factory=dict)  # category -> share of step
    primary_finding: Optional[str] = None


@dataclass(frozen=True)
class Diagnosis(JsonMixin):
    verdict: Verdict
    findings: tuple[Finding, ...] = ()
    facts: tuple[Fact, ...] = ()
    rule_errors: tuple[str, ...] = ()  # broken rule files: "path:line: problem"
    rules_evaluated: int = 0
    whatif_combined: Optional[Verification] = None  # all helpful fixes together (--verify)

    def fact(self, name: str) -> Optional[Fact]:
        for f in self.facts:
            if f.name == name:
                return f
        return None

    def fact_values(self) -> dict[str, FactValue]:
        """Every fact's value by name: the numbers the report and the terminal show."""
        return {f.name: f.value for f in self.facts}
