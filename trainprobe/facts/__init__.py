"""RunRecord -> named facts with units, one small pure function per family.

Each family module (``steps``, ``loader``, ``host``, ``profiler``, ``gpu``,
``settings``) declares ``FACTS`` (name -> unit and meaning) and
``compute(record) -> dict``. ``compute_facts`` runs them all and returns one
:class:`~trainprobe.findings.Fact` per catalog entry, with ``None`` where the
record cannot tell (no profiler window, no GPU, the script crashed early...).
A family that fails on an odd record gives ``None`` for its facts instead of
stopping the diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..figures import JobFigures
from ..findings import Fact
from ..record import RunRecord
from . import batching, code, compute, configkeys, device, gpu, host, input, job, memory, ops, parts, settings, steps
from . import paging, unoptimized
from . import job as job_family
from .trace import blank_absence, blank_unknowable, unknown_in_a_trace
from .input import fetch_uncontended, suggest_prefetch_factor, with_suggested_workers

__all__ = ["FactSpec", "FACT_CATALOG", "UNKNOWN_IN_A_TRACE", "FAMILIES", "compute_facts", "facts_by_name", "recompute_step_facts"]


@dataclass(frozen=True)
class FactSpec:
    name: str
    unit: str
    family: str
    meaning: str


FAMILIES = (steps, input, host, paging, ops, batching, device, gpu, settings, job, code, configkeys, parts, compute, unoptimized,
            memory)

FACT_CATALOG: dict[str, FactSpec] = {
    name: FactSpec(name, unit, module.FAMILY, meaning)
    for module in FAMILIES
    for name, (unit, meaning) in module.FACTS.items()
}

# Facts a record read from a trace file leaves unknown (facts/trace.py).
UNKNOWN_IN_A_TRACE = unknown_in_a_trace(FACT_CATALOG)

_Compute = Callable[[RunRecord], dict]


def _run_family(compute: _Compute, record: RunRecord) -> dict:
    try:
        return compute(record)
    except Exception:  # pylint: disable=broad-except  # an odd record must not stop a diagnosis
        return {}


def compute_facts(record: RunRecord, job: Optional[JobFigures] = None) -> tuple[Fact, ...]:
    """Every fact of the catalog for ``record``, in catalog order; unknown values are None. ``job``: the
    figures of the job ``record`` is a rank of (facts/job.py), for the job's own facts."""
    values: dict[str, object] = {}
    for module in FAMILIES:
        if module is job_family:
            values.update(_run_family(lambda r: job_family.compute(r, job), record))
            continue
        values.update(_run_family(module.compute, record))
    _complete(values, record)
    return tuple(
        Fact(name=spec.name, value=_plain(values.get(name)), unit=spec.unit,
             family=spec.family, description=spec.meaning)
        for name, spec in FACT_CATALOG.items()
    )


# The families whose facts come from the steps: all a resample of the steps changes.
STEP_FAMILIES = (steps, input)


def recompute_step_facts(record: RunRecord, values: dict[str, object]) -> dict[str, object]:
    """``values`` (a record's facts by name) with the step families computed again for ``record``
    (the same run with other steps: a resample of its steady steps)."""
    out = dict(values)
    for module in STEP_FAMILIES:
        out.update(_run_family(module.compute, record))
    out.update(_run_family(device.compute, record))  # its shares, rescaled to the new steady step below
    _complete(out, record)
    # _plain inlined for the values that are plain already (nearly all): a diagnosis does this for each
    # of its hundred resamples, over every fact of the catalog.
    get = out.get
    return {name: (value if (value := get(name)) is None or (kind := value.__class__) is bool or kind is int
                   or kind is str or (kind is float and value == value) else _plain(value))
            for name in FACT_CATALOG}


def _complete(values: dict[str, object], record: RunRecord) -> None:
    """After the families, in place: what a trace cannot tell made unknown, then the facts that
    combine families."""
    if values.get("from_trace"):
        blank_unknowable(values, UNKNOWN_IN_A_TRACE)
        blank_absence(values)
    values.update(_run_family(lambda _record: _derived(values), record))


def _derived(values: dict[str, object]) -> dict[str, object]:
    """Facts that combine families (computed after them)."""
    out = {"suggested_prefetch_factor": suggest_prefetch_factor(
        values.get("num_workers"), values.get("prefetch_factor"),
        values.get("data_wait_stall_p90"), values.get("step_time"))}
    out["loop_python_share"] = _loop_python_share(values)
    out.update(parts.removable({**values, **out}))
    out.update(compute.achieved(values))
    out.update(device.steady_device({**values, **out}))
    out.update(device.exposed_copy({**values, **out}))
    out.update(with_suggested_workers(values))
    out.update(fetch_uncontended(values))
    out.update(batching.derive({**values, **out}))
    out.update(steps.backward_without_recompute(values))
    return out


def _loop_python_share(values: dict[str, object]) -> object:
    """The step's other part without the torch ops it ran and the measured syncs: the loop's Python.
    Without an op profile, the whole other part less the syncs (as before phases were traced)."""
    other = values.get("other_share")
    if other is None:
        return None
    loop_ops = values.get("loop_op_share") or 0.0
    sync = values.get("sync_share") or 0.0
    return max(0.0, other - min(other, loop_ops + sync))  # type: ignore[operator]


def facts_by_name(facts: tuple[Fact, ...]) -> dict[str, object]:
    return {f.name: f.value for f in facts}


def _plain(value: object) -> object:
    """Keep facts JSON-ready: bool, int, float, str or None."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value else None
    try:
        return float(value)  # numpy scalars and the like
    except (TypeError, ValueError):
        return str(value)
