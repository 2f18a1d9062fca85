"""What the rule engine makes of a run record: facts, findings and the verdict.

``RunRecord`` (measured) → ``Fact`` (named values with units) → ``Finding``
(one rule that fired, with its evidence and advice) → ``Diagnosis`` (the
verdict and the ranked findings), which the report renders.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Union

from .figures import JobFigures
from .jsonio import JsonMixin
from .vocabulary import CATEGORIES  # the verdict's classes, kept in this module's surface

__all__ = [
    "BORDERLINE",
    "SEVERITIES",
    "CATEGORIES",
    "Fact",
    "Evidence",
    "Gain",
    "Verification",
    "Trial",
    "TriedFix",
    "WhatIf",
    "RuleDocs",
    "Finding",
    "Verdict",
    "Diagnosis",
]

SEVERITIES = ("info", "warning", "critical")  # ascending

FactValue = Union[bool, int, float, str, None]

# A verdict that fewer than this share of resamples of its steps reach is borderline.
BORDERLINE = 0.8


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
    text: str = ""  # "about 2.5× faster steps (56 ms less in a 141 ms mean step; 95% interval 50–62 ms)"
    base: Optional[float] = None  # the step time the gain is part of (the mean steady step, unless the rule says)
    low: Optional[float] = None  # 95% interval of seconds_per_step over resamples of the steady steps
    high: Optional[float] = None
    # The fix changes the samples per step (a larger batch): seconds_per_step is saved on the samples
    # one step holds now, and speedup is a ratio of samples per second, not of step times.
    per_sample: bool = False
    # Measured by the what-if (--verify) rather than estimated: speedup is the measured median.
    measured: bool = False


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

    @property
    def span(self) -> str:
        """"3.89–7.33, n=4": the measured interval and the pairs behind it, as the what-if writes ratios."""
        if self.low is None or self.high is None:
            return f"n={self.n}"
        number = lambda x: f"{x:.2f}" if x < 10 else f"{x:.1f}"  # noqa: E731
        return f"{number(self.low)}–{number(self.high)}, n={self.n}"


@dataclass(frozen=True)
class Trial(JsonMixin):
    """One short run of the script in the what-if: the baseline (no fixes) or with fixes applied."""

    index: int = 0
    label: str = ""  # "baseline", "num_workers=2", "combined"
    fixes: dict[str, object] = field(default_factory=dict)
    out_dir: str = ""
    status: str = "ok"  # ok, failed, interrupted
    reason: str = ""
    wall: float = 0.0  # seconds the trial took, start-up included
    steps: int = 0  # steady steps measured
    step_time: Optional[float] = None  # the step_time fact of its run (mean steady step), seconds
    steps_per_second: Optional[float] = None
    samples_per_second: Optional[float] = None
    epoch_start_step_time: Optional[float] = None  # the epoch_start_step_time fact
    warmup_time: Optional[float] = None  # seconds of its warm-up steps (a compile's cost shows here)
    recompiles: Optional[int] = None  # torch.compile's recompilations in the run
    losses: tuple[float, ...] = ()  # per backward in the measured window
    fixes_applied: tuple[str, ...] = ()  # what the child says took effect
    fix_details: tuple[str, ...] = ()
    memory_peak: Optional[int] = None  # bytes: the counted step's peak (a GPU: the allocator's peak allocated)
    oom: bool = False  # the trial ran out of memory (after measuring its steps: they still count)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.step_time is not None


@dataclass(frozen=True)
class TriedFix(JsonMixin):
    """One candidate of the what-if and its speed-up over its baseline pairs."""

    key: str = ""  # "num_workers=2"
    fix_id: str = ""
    fixes: dict[str, object] = field(default_factory=dict)
    speedup: Optional[float] = None  # median over pairs of baseline / fix step time
    low: Optional[float] = None
    high: Optional[float] = None
    ratios: tuple[float, ...] = ()
    skipped: Optional[str] = None  # why it was not tried


@dataclass(frozen=True)
class WhatIf(JsonMixin):
    """Everything the measured what-if found, saved with the diagnosis so a re-render keeps it."""

    budget: float = 0.0
    elapsed: float = 0.0
    gain_threshold: float = 1.05
    baseline_noise: float = 0.0  # how much the baseline repeats differed (max/min - 1)
    stopped: Optional[str] = None  # why the trials ended early
    verifications: dict[str, Verification] = field(default_factory=dict)  # finding id -> its verification
    combined: Optional[Verification] = None  # every helpful fix together
    combined_fixes: dict[str, object] = field(default_factory=dict)
    tried: tuple[TriedFix, ...] = ()
    trials: tuple[Trial, ...] = ()


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
    changes_at: str = ""  # the line the fix changes, "file.py:line", as a linter names it ("" when unknown)
    framework: str = ""  # the framework whose terms the advice uses (a rule's [framework.NAME]); "" plain PyTorch
    gain: Gain = field(default_factory=Gain)
    docs: RuleDocs = field(default_factory=RuleDocs)
    fix_id: Optional[str] = None  # what-if fix that can be injected at run time
    verification: Optional[Verification] = None
    # The finding whose fix comes first, when this one is shown as its follow-up (engine/verdict.py
    # rank_findings: a fix that pays after another is listed right after it, as info).
    after: Optional[str] = None
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
    # How firmly the measured steps support it (a bootstrap over the steady steps): the share of
    # resamples that reached this category, the category the others reached, and the 95% interval
    # of this category's share of the step.
    agreement: Optional[float] = None
    alternative: Optional[str] = None
    share_low: Optional[float] = None
    share_high: Optional[float] = None

    @property
    def borderline(self) -> bool:
        return self.agreement is not None and self.agreement < BORDERLINE


@dataclass(frozen=True)
class Diagnosis(JsonMixin):
    verdict: Verdict
    findings: tuple[Finding, ...] = ()
    facts: tuple[Fact, ...] = ()
    rule_errors: tuple[str, ...] = ()  # broken rule files: "path:line: problem"
    rules_evaluated: int = 0
    whatif: Optional[WhatIf] = None  # the measured what-if (--verify), when it ran
    # Rules that could not be judged because the record cannot hold what they read (a trace file
    # holds no DataLoader or optimizer settings): "rule-id: needs fact, fact".
    not_judged: tuple[str, ...] = ()
    # A job's diagnosis (its straggler's, failed or first rank's record, with the job's facts): every
    # rank's figures, for the report's table (facts/job.py). None for a single run.
    job: Optional[JobFigures] = None

    def fact(self, name: str) -> Optional[Fact]:
        for f in self.facts:
            if f.name == name:
                return f
        return None

    @property
    def whatif_combined(self) -> Optional[Verification]:
        return self.whatif.combined if self.whatif is not None else None

    def with_whatif(self, whatif: Optional[WhatIf]) -> "Diagnosis":
        """This diagnosis with the what-if's measurements on its findings (matched by finding id)."""
        if whatif is None:
            return self
        findings = tuple(replace(f, verification=whatif.verifications.get(f.id, f.verification))
                         for f in self.findings)
        return replace(self, findings=findings, whatif=whatif)

    def fact_values(self) -> dict[str, FactValue]:
        """Every fact's value by name: the numbers the report and the terminal show."""
        return {f.name: f.value for f in self.facts}
