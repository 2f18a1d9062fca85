"""What a readiness item is, and what its module uses to measure and grade.

An item is one module under :mod:`.items` that defines ``ITEM``, an
:class:`Item`: its key and title, how it is measured (a quick function
``MachineFacts -> Measurement``, or a :class:`Benchmark` run in a child
process), how it is graded (``grade(measurement, expectations, facts,
required) -> Grade``) and the ``[require]`` keys of the expect file it reads
(:class:`Requirement`). Measuring only reports what was found (a value, or
None and the reason); grading decides whether that is good enough and never
measures, so a saved result re-grades the same on any machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..display import UNKNOWN, nbytes
from ..record import DiskInfo, GpuInfo
from .results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from .expect import Expectations

__all__ = [
    "Item", "Benchmark", "Requirement", "Measure", "Grader", "REQUIREMENT_KINDS",
    "GIB", "NO_GPU_REASON", "FIX_GPU", "FIX_TORCH", "FIX_MATCHING",
    "parse_version", "at_least", "torch_missing", "visible_gpus", "data_disk", "size_measurement",
    "shown", "grade_of", "grade_bar", "with_note",
]

GIB = 1024 ** 3
NO_GPU_REASON = "needs a GPU (none visible)"
FIX_GPU = ("use a machine with an NVIDIA GPU (the lab machines, Google Colab or a cloud GPU); if this "
           "machine has one, install the NVIDIA driver until `nvidia-smi` lists it, and in a container "
           "start it with `--gpus all`")
FIX_TORCH = "pip install torch torchvision (pick the command for your CUDA version at pytorch.org)"
FIX_MATCHING = ("install matching builds together from the same index: "
                "pip install --force-reinstall torch torchvision (with the same --index-url for both)")

Measure = Callable[[MachineFacts], Measurement]
Grader = Callable[[Measurement, "Expectations", MachineFacts, bool], Grade]


# ------------------------------------------------------------ the contract

def parse_version(text: str) -> Optional[tuple[int, ...]]:
    """"2.15.0+cu128" -> (2, 15, 0); None when it has no leading number."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(text))
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {value!r}")
    return value


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"must be a whole number, not {value!r}")
    return value


def _version(value: Any) -> str:
    text = str(value).lstrip(">= ")
    if parse_version(text) is None:
        raise ValueError(f'must be a version such as "2.4", not {value!r}')
    return text


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"must be a number, not {value!r}")
    return float(value)


REQUIREMENT_KINDS: dict[str, Callable[[Any], Any]] = {
    "flag": _flag, "count": _count, "version": _version, "number": _number}


@dataclass(frozen=True)
class Requirement:
    """A ``[require]`` key of the expect file: setting it makes its item required."""

    key: str
    kind: str = "number"  # flag | count | version | number (see REQUIREMENT_KINDS)

    def parse(self, value: Any) -> Any:
        """The value as graders read it; ValueError("<key> must be ...") when it cannot be."""
        try:
            return REQUIREMENT_KINDS[self.kind](value)
        except ValueError as exc:
            raise ValueError(f"{self.key} {exc}") from None


@dataclass(frozen=True)
class Benchmark:
    """A measurement run in a child process: ``python -m trainprobe.readiness.bench NAME ARGS``."""

    name: str  # the function's name in bench.BENCHMARKS
    args: tuple[str, ...] = ()
    timeout: float = 60.0  # seconds, then "could not measure: timed out"
    unit: str = ""  # of the value it returns
    needs_torch: bool = False  # skipped when torch cannot be imported
    needs_data: bool = False  # run only with --data DIR (passed as --data DIR)
    extra_args: Optional[Callable[[MachineFacts], tuple[str, ...]]] = None


@dataclass(frozen=True)
class Item:
    """One line of the checklist. ``measure`` for a quick item, ``benchmark`` for the full check."""

    key: str
    title: str
    grade: Grader
    order: int = 1000  # where the checklist shows it (lower first)
    measure: Optional[Measure] = None
    benchmark: Optional[Benchmark] = None
    requirements: tuple[Requirement, ...] = ()
    needs_gpu: bool = False  # skipped without a GPU (a benchmark: one that torch can use)
    grades_missing: bool = False  # its grader reads a missing value; else "could not measure" is graded

    def measured(self, value: Any = None, **fields: Any) -> Measurement:
        """This item's Measurement: a value, or None with ``reason``."""
        return Measurement(key=self.key, title=self.title, value=value, **fields)

    def skipped(self, reason: str, **fields: Any) -> Measurement:
        """Does not apply here (a GPU item without a GPU); failed only when the course requires it."""
        return Measurement(key=self.key, title=self.title, skipped=True, reason=reason, **fields)


# ------------------------------------------------------ what items share

def torch_missing(f: MachineFacts) -> Optional[str]:
    """Why torch could not be imported, or None when it was."""
    a = f.torch.availability
    return None if a.available else (a.reason or "torch not importable")


def visible_gpus(f: MachineFacts) -> list[GpuInfo]:
    """GPUs from NVML, or from torch when NVML is missing (fields it lacks stay None)."""
    if f.environment.gpus:
        return list(f.environment.gpus)
    return [GpuInfo(index=d.index, name=d.name, memory_total=d.memory_total, compute_capability=d.capability,
                    bf16=d.bf16_supported, tf32=d.bf16_supported) for d in f.torch.devices]


def data_disk(f: MachineFacts) -> Optional[DiskInfo]:
    """The disk under --data (or the current folder)."""
    return f.environment.disks[0] if f.environment.disks else None


def size_measurement(item: Item, value: Optional[int], **details: Any) -> Measurement:
    if value is None:
        return item.measured(details=dict(details))
    return item.measured(value, unit="bytes", shown=nbytes(value) if value else "none", details=dict(details))


def at_least(version: Optional[str], minimum: str) -> bool:
    v, lo = parse_version(version or ""), parse_version(minimum)
    return v is not None and lo is not None and v >= lo


def shown(m: Measurement) -> str:
    """The measured value as the checklist prints it."""
    if m.skipped:
        return m.reason or "not applicable here"
    if m.shown is not None:
        return m.shown
    if m.value is not None:
        return str(m.value)
    return f"{UNKNOWN}: {m.reason}" if m.reason else UNKNOWN


def grade_of(m: Measurement, status: str, threshold: str, note: Optional[str] = None,
             fix: Optional[str] = None, required: bool = False) -> Grade:
    return Grade(key=m.key, title=m.title or m.key, status=status, measured=shown(m), threshold=threshold,
                 note=note, fix=fix, required=required)


def grade_bar(m: Measurement, value: float, required_min: Optional[float], default_min: float,
              unit: str, fix: str, req: bool, note_low: str, fail_below: Optional[float] = None) -> Grade:
    """A number that must reach a bar: fail below the course's bar (or fail_below), warn below the default."""
    if required_min is not None:
        ok = value >= required_min
        return grade_of(m, PASS if ok else FAIL, f">= {required_min:g} {unit} (course)",
                        None if ok else note_low, None if ok else fix, req)
    if fail_below is not None and value < fail_below:
        return grade_of(m, FAIL, f">= {default_min:g} {unit}", note_low, fix, req)
    ok = value >= default_min
    return grade_of(m, PASS if ok else WARN, f">= {default_min:g} {unit}", None if ok else note_low,
                    None if ok else fix, req)


def with_note(g: Grade, note: str) -> Grade:
    """The grade with ``note`` added after its own."""
    return replace(g, note=(g.note + "; " if g.note else "") + note)
