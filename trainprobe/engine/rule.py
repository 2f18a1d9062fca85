"""A rule loaded from its TOML file, with every expression and template compiled."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..findings import RuleDocs
from .expr import Expression, Template

__all__ = ["Rule", "EvidenceSpec", "Variant", "REQUIRED_KEYS", "OPTIONAL_KEYS", "DOC_SECTIONS",
           "TEMPLATE_NAMES", "VARIANTS", "VARIANT_KEYS", "GAIN_PER"]

REQUIRED_KEYS = ("id", "name", "category", "severity", "condition", "title", "message",
                 "advice", "docs")
OPTIONAL_KEYS = ("snippet", "changes", "gain", "gain_base", "gain_per", "fix_id", "severity_when", "options",
                 "options_from", "evidence", "gpu_only", "without_steps", "framework", "after", "let")
GAIN_PER = ("step", "sample")  # what a gain's seconds are saved on: each step, or each step's samples
DOC_SECTIONS = ("what", "why", "evidence", "fix", "options", "references")

# Names templates may use besides facts and options: the gain, once computed.
TEMPLATE_NAMES = ("gain_seconds", "speedup", "severity")
# Names severity_when may use besides facts and options: the gain is computed before the severity, so
# that a fix's severity can follow what it recovers (engine/evaluate.py).
SEVERITY_NAMES = ("gain_seconds", "speedup")

# The frameworks a rule may write its fix for ([framework.NAME] tables), as the ``framework`` fact
# names them; ``cli`` is a script's own command-line flags (timm's and torchvision's reference
# scripts: --amp, -j, --channels-last), tried for any framework without a table of its own; ``config`` is a
# configuration file the script read (Hydra, yacs, LightningCLI, a YAML/TOML/JSON of its own: facts/configkeys.py),
# tried first, where its ``when`` finds the knob's key there; ``library`` is an argument of the library function
# the script's line called, which carries the knob into objects the library builds (scvi-tools'
# model.train(batch_size=...)), tried next.
# torchtnt has a table only where one of its own arguments is the fix (AutoUnit(detect_anomaly=...)); its loop's
# other fixes keep the wording for a library that runs the loop (facts/code.py framework_runs_loop).
VARIANTS = ("transformers", "lightning", "fabric", "accelerate", "timm", "skorch", "stable_baselines3", "ignite",
            "keras", "fastai", "torchtnt", "cli", "config", "library")
VARIANT_KEYS = ("advice", "snippet", "changes", "when")


@dataclass(frozen=True)
class Variant:
    """A rule's fix as one framework spells it: replaces the plain-PyTorch advice, snippet and line."""

    name: str
    advice: Optional[Template] = None
    snippet: Optional[Template] = None
    changes: Optional[Template] = None
    when: Optional[Expression] = None  # also needed for it to apply (a cli table: the script has the flag)


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
    changes: Optional[Template] = None  # the line the fix changes, "file.py:line" (a fact such as loader_at)
    variants: tuple[Variant, ...] = ()  # the fix in a framework's terms, tried before the plain one
    gain: Optional[Expression] = None  # seconds per step the fix recovers
    gain_base: Optional[Expression] = None  # the step time the gain is part of (default: median)
    # "sample": the fix changes the samples per step (a larger batch); the gain is seconds saved on
    # the same samples as one step holds now, and its speed-up is in samples per second.
    gain_per: str = "step"
    fix_id: Optional[Template] = None  # a template: the fix may depend on the facts
    severity_when: tuple[tuple[str, Expression], ...] = ()  # checked in order, first true wins
    options: dict[str, Any] = field(default_factory=dict)  # the shared set's (options_from), then its own
    options_from: Optional[str] = None  # the shared option set it reads (rules/shared/NAME.toml)
    shared_options: tuple[str, ...] = ()  # the options whose values come from that set (not its own)
    evidence: tuple[EvidenceSpec, ...] = ()
    gpu_only: bool = False  # never fires on a run that did not use CUDA
    without_steps: bool = False  # may fire on a run with no measured step (settings, OOM)
    after: Optional[str] = None  # the rule whose fix comes first: when it leads, this one follows it
    # [let]: named expressions over the facts and options (and the lets above them), evaluated in order before
    # the condition; every other key reads them as it reads a fact. A predicate or value the rule needs in
    # several texts is written once.
    lets: tuple[tuple[str, Expression], ...] = ()
    line: int = 1  # line of the condition, for errors at evaluation time
    lines: dict[str, int] = field(default_factory=dict)  # line of each key (message, advice, ...) in its file

    def line_of(self, key: str) -> int:
        return self.lines.get(key, self.line)
