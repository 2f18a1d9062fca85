"""The check's data: what was measured, how it was graded, and the saved result.

Collecting, grading and printing are separate stages that pass these frozen
dataclasses; a saved :class:`CheckResult` can be re-read (``check-summary``)
and re-graded without the machine it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..exits import FAILED_CHECK, OK, PARTIAL
from ..jsonio import JsonMixin
from ..machine import TorchDevice, TorchFacts  # the probe reads the same facts
from ..record import Environment

__all__ = [
    "PASS", "WARN", "FAIL", "SKIP", "STATUSES",
    "READY", "WARNINGS", "NOT_READY", "EXIT_CODES", "VERDICT_TEXT",
    "TorchDevice", "TorchFacts", "MachineFacts", "Measurement", "Grade", "CheckResult",
    "CHECK_KIND", "CHECK_SCHEMA_VERSION", "RESULT_TAG",
]

PASS, WARN, FAIL, SKIP = "pass", "warn", "fail", "skip"
STATUSES = (FAIL, WARN, PASS, SKIP)  # worst first

READY, WARNINGS, NOT_READY = "ready", "warnings", "not_ready"
# trainprobe's one exit policy (trainprobe/exits.py): "Not ready" is a check that says no, as compare's gate;
# 2 is bad input for every command. Results saved before this said 2 for "Not ready".
EXIT_CODES = {READY: OK, WARNINGS: PARTIAL, NOT_READY: FAILED_CHECK}
VERDICT_TEXT = {READY: "Ready", WARNINGS: "Ready with warnings", NOT_READY: "Not ready"}

RESULT_TAG = "TRAINPROBE_RESULT "  # prefixes a child measurement's JSON line (see bench.py)

CHECK_KIND = "trainprobe-check"
CHECK_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class MachineFacts(JsonMixin):
    """Everything the quick items are computed from."""

    environment: Environment = field(default_factory=Environment)
    torch: TorchFacts = field(default_factory=TorchFacts)
    cuda_driver: Optional[str] = None  # newest CUDA the driver supports, "12.4"
    throttle_reasons: tuple[Optional[int], ...] = ()  # NVML bitmask per GPU
    data_dir: Optional[str] = None

    @property
    def has_gpu(self) -> bool:
        return bool(self.environment.gpus) or self.torch.cuda_available


@dataclass(frozen=True)
class Measurement(JsonMixin):
    """One checklist item's measured value, or None and the reason.

    ``skipped`` means the item does not apply here (a GPU item without a GPU);
    the grader still fails it when the course requires it.
    """

    key: str = ""
    title: str = ""
    value: Optional[Any] = None  # the figure graded (number, text, bool)
    unit: str = ""
    shown: Optional[str] = None  # the value as a person reads it
    reason: Optional[str] = None  # why value is None
    skipped: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def measured(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class Grade(JsonMixin):
    key: str = ""
    title: str = ""
    status: str = SKIP
    measured: str = ""  # what was found, or "unknown: reason"
    threshold: str = ""  # what pass needs
    note: Optional[str] = None  # what it means, in a sentence
    fix: Optional[str] = None
    required: bool = False  # named by the course's --expect file


@dataclass(frozen=True)
class CheckResult(JsonMixin):
    kind: str = CHECK_KIND
    schema_version: int = CHECK_SCHEMA_VERSION
    name: str = ""  # the student's name for the class table (--name)
    hostname_hash: Optional[str] = None
    created_at: str = ""
    trainprobe_version: str = ""
    mode: str = "quick"  # quick | full
    duration: float = 0.0
    course: str = ""
    expectations: dict[str, Any] = field(default_factory=dict)
    facts: MachineFacts = field(default_factory=MachineFacts)
    measurements: tuple[Measurement, ...] = ()
    grades: tuple[Grade, ...] = ()
    verdict: str = NOT_READY
    exit_code: int = FAILED_CHECK

    def counts(self) -> dict[str, int]:
        return {s: sum(g.status == s for g in self.grades) for s in STATUSES}
