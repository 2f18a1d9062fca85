"""Runs -> one frozen :class:`Comparison`: every number the comparison's page, table and JSON show.

The first run is the baseline; each other run is a candidate, compared with
it. A run's figures are its diagnosis's facts (the step time, throughput and
phases its own report shows), over the steady steps of
``facts.window.steady_steps``; what the comparison adds (the speed-up and its
interval, the phase changes, the findings resolved and new, the settings
changed) is computed here, once. Renderers format these numbers and never
compute one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..facts.steps import PHASES
from ..facts.window import MIN_STEADY_STEPS, steady_steps
from ..findings import FactValue
from ..jsonio import JsonMixin
from ..report.sections import STATUS_TEXT
from .bootstrap import CONFIDENCE, RESAMPLES, SEED, speedup_interval
from .inputs import CompareError, LoadedRun
from .losses import LossSummary, learns_differently, loss_summary
from .settings_diff import SettingChange, mismatch_flags, setting_values, settings_changed

__all__ = ["COMPARISON_VERSION", "SLOW_IN_CLASS", "FindingRef", "RunSummary", "PhaseChange", "CandidateResult",
           "Comparison", "compare_runs"]

COMPARISON_VERSION = 1
CRASHED = ("failed", "killed", "interrupted", "timeout", "probe_error")
# In a class view (three runs or more), a run whose time per step (or sample) is this many times the
# class's median is called slow.
SLOW_IN_CLASS = 1.25


@dataclass(frozen=True)
class FindingRef(JsonMixin):
    id: str = ""
    title: str = ""
    severity: str = ""


@dataclass(frozen=True)
class RunSummary(JsonMixin):
    """One run as its own diagnosis sees it."""

    label: str = ""
    path: str = ""
    script: str = ""
    status: str = ""
    crashed: bool = False
    steady_steps: int = 0
    step_time: Optional[float] = None  # the step_time fact: mean steady step, seconds
    step_time_median: Optional[float] = None
    steps_per_second: Optional[float] = None
    samples_per_second: Optional[float] = None
    samples_per_step: Optional[int] = None
    verdict: str = "unknown"  # the verdict's category
    headline: str = ""
    borderline: bool = False
    primary_finding: Optional[str] = None
    findings: tuple[FindingRef, ...] = ()
    phases: dict[str, float] = field(default_factory=dict)  # phase -> seconds per steady step (facts)
    shares: dict[str, float] = field(default_factory=dict)  # phase -> share of the steady step (facts)
    settings: dict[str, FactValue] = field(default_factory=dict)  # settings_diff.SETTINGS by name
    loss: Optional[LossSummary] = None
    slow_in_class: bool = False  # a class view's run at SLOW_IN_CLASS times the median or more
    schema_version: int = 0  # of its record: runs recorded by different trainprobe versions are flagged
    mfu: Optional[float] = None  # the mfu fact: matrix FLOP/s over the peak
    peak_dtype: Optional[str] = None


@dataclass(frozen=True)
class PhaseChange(JsonMixin):
    phase: str = ""
    baseline: Optional[float] = None  # seconds per steady step
    candidate: Optional[float] = None
    delta: Optional[float] = None  # candidate - baseline
    baseline_share: Optional[float] = None
    candidate_share: Optional[float] = None


@dataclass(frozen=True)
class CandidateResult(JsonMixin):
    """One candidate against the baseline."""

    label: str = ""
    speedup: float = 1.0  # baseline over candidate time per unit: above 1, the candidate is faster
    low: float = 1.0  # its 95% interval
    high: float = 1.0
    conclusion: str = "inconclusive"  # faster | slower (the interval excludes 1) | inconclusive
    phases: tuple[PhaseChange, ...] = ()
    changed_most: Optional[str] = None  # the phase whose seconds per step moved most
    resolved: tuple[str, ...] = ()  # finding ids of the baseline the candidate no longer has
    new: tuple[str, ...] = ()
    persisting: tuple[str, ...] = ()
    settings_changed: tuple[SettingChange, ...] = ()
    flags: tuple[str, ...] = ()  # what makes the difference less than "this change, this effect"
    learns_differently: Optional[bool] = None  # None: a loss is missing from one of the runs


@dataclass(frozen=True)
class Comparison(JsonMixin):
    version: int = COMPARISON_VERSION
    basis: str = "steps"  # steps (steps/s) | samples (samples/s: the batch sizes differ)
    resamples: int = RESAMPLES
    seed: int = SEED
    confidence: float = CONFIDENCE
    runs: tuple[RunSummary, ...] = ()  # as given: the baseline first
    candidates: tuple[CandidateResult, ...] = ()  # runs[1:], in order
    class_view: bool = False  # three runs or more: a table of all of them, fastest first
    ranking: tuple[str, ...] = ()  # labels, fastest first
    notes: tuple[str, ...] = ()

    @property
    def baseline(self) -> RunSummary:
        return self.runs[0]

    def run(self, label: str) -> RunSummary:
        return next(r for r in self.runs if r.label == label)


def _too_few(run: LoadedRun, steps: int) -> CompareError:
    status = run.record.outcome.status
    ended = "" if status in ("completed", "stopped") else \
        f"; the run {STATUS_TEXT.get(status, (status,))[0]} after {len(run.record.steps)} recorded steps"
    plural = "" if steps == 1 else "s"
    return CompareError(f"too few steps to compare: {run.label} has {steps} steady step{plural} (at least "
                        f"{MIN_STEADY_STEPS} are needed){ended}")


def _summary(run: LoadedRun) -> RunSummary:
    facts = run.diagnosis.fact_values()
    v = run.diagnosis.verdict
    settings = setting_values(run.record, facts)
    return RunSummary(
        label=run.label, path=str(run.path), script=str(settings["script"] or ""),
        status=run.record.outcome.status, crashed=run.record.outcome.status in CRASHED,
        steady_steps=int(facts.get("steady_steps") or 0),  # type: ignore[arg-type]
        step_time=facts.get("step_time"), step_time_median=facts.get("step_time_median"),  # type: ignore[arg-type]
        steps_per_second=facts.get("steps_per_second"),  # type: ignore[arg-type]
        samples_per_second=facts.get("samples_per_second"),  # type: ignore[arg-type]
        samples_per_step=facts.get("samples_per_step"),  # type: ignore[arg-type]
        verdict=v.category, headline=v.headline, borderline=v.borderline, primary_finding=v.primary_finding,
        findings=tuple(FindingRef(f.id, f.title, f.severity) for f in run.diagnosis.findings),
        phases={p: facts[f"{p}_per_step"] for p in PHASES if facts.get(f"{p}_per_step") is not None},  # type: ignore[misc]
        shares={p: facts[f"{p}_share"] for p in PHASES if facts.get(f"{p}_share") is not None},  # type: ignore[misc]
        settings=settings, loss=loss_summary(run.whatif), schema_version=run.record.schema_version,
        mfu=facts.get("mfu"), peak_dtype=facts.get("peak_dtype"),  # type: ignore[arg-type]
    )


def _basis(summaries: Sequence[RunSummary], runs: Sequence[LoadedRun]) -> str:
    """samples when the batch sizes differ and every steady step's samples are known, else steps."""
    sizes = {s.samples_per_step for s in summaries}
    if len(sizes) < 2 or None in sizes:
        return "steps"
    known = all(st.samples for run in runs for st in steady_steps(run.record))
    return "samples" if known else "steps"


def _phases(base: RunSummary, cand: RunSummary) -> tuple[tuple[PhaseChange, ...], Optional[str]]:
    changes = []
    for p in PHASES:
        a, b = base.phases.get(p), cand.phases.get(p)
        if a is None and b is None:
            continue
        changes.append(PhaseChange(phase=p, baseline=a, candidate=b,
                                   delta=(b - a) if a is not None and b is not None else None,
                                   baseline_share=base.shares.get(p), candidate_share=cand.shares.get(p)))
    moved = [c for c in changes if c.delta]
    most = max(moved, key=lambda c: abs(c.delta or 0.0)).phase if moved else None
    return tuple(changes), most


def _flags(base: RunSummary, cand: RunSummary, changes) -> tuple[str, ...]:
    flags = list(mismatch_flags(changes))
    if base.schema_version != cand.schema_version:
        # This version reads both; a figure that only the newer schema records is missing from the other.
        flags.append(f"recorded by different trainprobe versions (record schema {base.schema_version} and "
                     f"{cand.schema_version}): figures only the newer one records are left out")
    for run in (base, cand):
        if run.crashed:
            what = STATUS_TEXT.get(run.status, (run.status,))[0]
            flags.append(f"{run.label} {what}: it is compared on the {run.steady_steps} steady steps it measured")
    return tuple(flags)


def _candidate(base: LoadedRun, cand: LoadedRun, base_s: RunSummary, cand_s: RunSummary,
               basis: str) -> CandidateResult:
    a, b = steady_steps(base.record), steady_steps(cand.record)
    units = (lambda steps: [float(s.samples or 0) for s in steps]) if basis == "samples" else (lambda steps: None)
    interval = speedup_interval([s.duration for s in a], [s.duration for s in b], units(a), units(b))
    conclusion = "faster" if interval.low > 1.0 else "slower" if interval.high < 1.0 else "inconclusive"
    phases, most = _phases(base_s, cand_s)
    before = [f.id for f in base_s.findings]
    after = [f.id for f in cand_s.findings]
    changed = settings_changed(base_s.settings, cand_s.settings)
    return CandidateResult(
        label=cand_s.label, speedup=interval.point, low=interval.low, high=interval.high, conclusion=conclusion,
        phases=phases, changed_most=most,
        resolved=tuple(i for i in before if i not in after), new=tuple(i for i in after if i not in before),
        persisting=tuple(i for i in before if i in after), settings_changed=changed,
        flags=_flags(base_s, cand_s, changed), learns_differently=learns_differently(base_s.loss, cand_s.loss))


def _time_per_unit(run: RunSummary, basis: str) -> float:
    rate = run.samples_per_second if basis == "samples" else run.steps_per_second
    return 1.0 / rate if rate else float("inf")


def _class_view(summaries: list[RunSummary], basis: str) -> tuple[list[RunSummary], tuple[str, ...]]:
    times = sorted(_time_per_unit(s, basis) for s in summaries)
    n = len(times)
    median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    marked = [RunSummary(**{**vars(s), "slow_in_class": _time_per_unit(s, basis) >= SLOW_IN_CLASS * median})
              for s in summaries]
    ranking = tuple(s.label for s in sorted(marked, key=lambda s: _time_per_unit(s, basis)))
    return marked, ranking


def _notes(summaries: Sequence[RunSummary], basis: str) -> tuple[str, ...]:
    notes = []
    if basis == "samples":
        notes.append("the runs' batch sizes differ, so they are compared per sample (samples/s), not per step")
    missing = [s.label for s in summaries if s.loss is None]
    if missing and len(missing) < len(summaries):
        notes.append(f"no loss recorded for {', '.join(missing)}: the loss is shown where recorded (a plain "
                     "diagnose record holds none; `trainprobe verify run.json` records it)")
    elif missing:
        notes.append("no loss recorded for any run: a plain diagnose record holds none (`trainprobe verify "
                     "run.json` records the loss of its baseline runs), so speed is compared without it")
    return tuple(notes)


def compare_runs(runs: Sequence[LoadedRun]) -> Comparison:
    """The comparison of ``runs`` (the first is the baseline). Raises CompareError when a run has too few
    steady steps to compare."""
    if len(runs) < 2:
        raise CompareError("give at least two runs to compare: the baseline first, then the candidates")
    for run in runs:
        steps = len(steady_steps(run.record))
        if steps < MIN_STEADY_STEPS:
            raise _too_few(run, steps)
    summaries = [_summary(run) for run in runs]
    basis = _basis(summaries, runs)
    candidates = tuple(_candidate(runs[0], run, summaries[0], summary, basis)
                       for run, summary in zip(runs[1:], summaries[1:]))
    class_view = len(runs) >= 3
    ranking: tuple[str, ...] = ()
    if class_view:
        summaries, ranking = _class_view(summaries, basis)
    return Comparison(basis=basis, runs=tuple(summaries), candidates=candidates, class_view=class_view,
                      ranking=ranking, notes=_notes(summaries, basis))
