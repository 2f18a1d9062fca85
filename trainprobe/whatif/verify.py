"""The what-if, end to end: plan, run the trials, and write what was measured into the report.

``verify_result`` takes a finished diagnosis and returns a new one whose
findings carry a :class:`~trainprobe.findings.Verification`; the report and
``summary.json`` are rewritten, and ``whatif.json`` next to ``run.json``
keeps every trial.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import statistics
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..api import DiagnoseResult, TrainprobeError, finish, render
from ..facts.window import steady_steps
from ..findings import Diagnosis, Finding, Verification
from ..record import Invocation, RunRecord
from ..jsonio import write_json_atomic
from .plan import NUMERICS_FIXES, Candidate, plan_candidates
from .session import Outcome, Session
from .trials import GAIN_THRESHOLD, Interval, Trial, is_measured_gain, spread

__all__ = ["verify_result", "verify_record", "target_of", "DEFAULT_BUDGET"]

DEFAULT_BUDGET = 180.0  # seconds


def target_of(invocation: Invocation) -> list[str]:
    """The argv to run the recorded script again, or a TrainprobeError saying why it cannot be."""
    if invocation.module:
        return ["-m", invocation.module, *invocation.args]
    if not invocation.script:
        raise TrainprobeError("the run record does not say which script ran")
    if not Path(invocation.script).exists():
        raise TrainprobeError(f"the recorded script is gone: {invocation.script}")
    return [invocation.script, *invocation.args]


@contextlib.contextmanager
def _in_folder(path: str):
    """Run the trials from the folder the script was run from (relative data paths)."""
    before = os.getcwd()
    moved = bool(path) and os.path.isdir(path) and path != before
    if moved:
        os.chdir(path)
    try:
        yield
    finally:
        if moved:
            os.chdir(before)


def _fresh_folder(run_dir: Path) -> Path:
    folder, n = run_dir / "verify", 1
    while folder.exists():
        n += 1
        folder = run_dir / f"verify-{n}"
    return folder


def verify_record(record: RunRecord, record_path, budget: float = DEFAULT_BUDGET, rule_dirs: Sequence[Path] = (),
                  progress: Callable[[str], None] = lambda line: None) -> DiagnoseResult:
    """The what-if for a saved run: re-apply the rules, then verify (``trainprobe verify run.json``)."""
    target_of(record.invocation)  # a clear error before the rules and report are redone
    result = finish(record, Path(record_path), rule_dirs)
    return verify_result(result, budget=budget, rule_dirs=rule_dirs, progress=progress)


def verify_result(result: DiagnoseResult, budget: float = DEFAULT_BUDGET, rule_dirs: Sequence[Path] = (),
                  progress: Callable[[str], None] = lambda line: None, run: Optional[Callable] = None
                  ) -> DiagnoseResult:
    """Measure each injectable fix of ``result``'s findings on its script, within ``budget`` seconds."""
    record = result.record
    try:
        target = target_of(record.invocation)
    except TrainprobeError as exc:
        return dataclasses.replace(result, problems=result.problems + (f"--verify: {exc}",))
    candidates, decided, answers = plan_candidates(record, result.diagnosis)
    run_dir = Path(result.record_path).parent
    outcome = Outcome()
    if candidates and not steady_steps(record):
        progress("what-if: skipped: the run measured no training steps to compare against")
        candidates, answers = [], {}
    if candidates:
        names = ", ".join(c.key for c in candidates)
        progress(f"what-if: measuring {names} against the baseline, within {budget:g} s")
        session = Session(target, _fresh_folder(run_dir), budget, record.invocation.python_executable or "python",
                          progress, run)
        with _in_folder(record.invocation.cwd):
            try:
                outcome = session.run(candidates)
            except KeyboardInterrupt:  # between trials: keep what was measured
                outcome = session.interrupted()
    elif result.diagnosis.findings:
        progress("what-if: no finding has a fix trainprobe can apply at run time")
    else:
        progress("what-if: no finding, so no fix to measure")
    findings = tuple(_verified(f, decided, answers, candidates, outcome) for f in result.diagnosis.findings)
    diagnosis = dataclasses.replace(result.diagnosis, findings=findings)
    combined = _combined_summary(outcome)
    if combined is not None:
        diagnosis = dataclasses.replace(diagnosis, whatif_combined=Verification(
            status=combined["status"], speedup=combined["speedup"], low=combined["low"], high=combined["high"],
            n=combined["n"], text=combined["text"]))
    for line in _report_lines(findings, combined):
        progress(line)
    return _rewrite(result, diagnosis, outcome, combined, candidates, budget)


# -- verifications ------------------------------------------------------------------
def _verified(finding: Finding, decided: dict, answers: dict, candidates: Sequence[Candidate],
              outcome: Outcome) -> Finding:
    if finding.id in decided:
        return dataclasses.replace(finding, verification=decided[finding.id])
    keys = answers.get(finding.id, [])
    if not keys:
        return finding
    by_key = {c.key: c for c in candidates}
    return dataclasses.replace(finding, verification=_verification([by_key[k] for k in keys], outcome))


def _verification(options: list[Candidate], outcome: Outcome) -> Verification:
    tried = [c for c in options if outcome.pairs.get(c.key)]
    if not tried:
        if outcome.stopped:
            status = "failed" if outcome.stopped.startswith("the baseline") else "not_run"
            return Verification(status=status, text=f"not tried: {outcome.stopped}")
        why = next((outcome.skipped[c.key] for c in options if c.key in outcome.skipped), "not tried")
        return Verification(status="not_run", text=why)
    measured = [c for c in tried if outcome.results.get(c.key) is not None]
    if not measured:
        base, fix = outcome.pairs[tried[0].key][-1]
        which = f"the trial with {tried[0].key}" if not fix.ok else "its baseline trial"
        reason = fix.reason if not fix.ok else base.reason
        return Verification(status="failed", text=f"{which} failed: {reason}")
    # The best value: a measured gain first, then the largest median.
    best = max(measured, key=lambda c: (is_measured_gain(outcome.results[c.key], outcome.pairs[c.key]),
                                        outcome.results[c.key].median))  # type: ignore[union-attr]
    result = outcome.results[best.key]
    assert result is not None
    pairs = outcome.pairs[best.key]
    fix_trials = [f for _, f in pairs if f.ok]
    gained = is_measured_gain(result, pairs)
    which = f" with {best.key}" if len(options) > 1 or best.key != best.fix_id else ""
    others = [c for c in measured if c is not best]
    if others:
        which += " (" + ", ".join(f"{c.key}: {_ratio(outcome.results[c.key].median)}"  # type: ignore[union-attr]
                                  for c in others) + ")"
    text = _gain_text(result, _noise(pairs), gained, which) + _rates_text(pairs)
    acted = _acted(best, fix_trials)
    if not acted:
        text += f"; note: {best.fix_id} found nothing to change in this run"
    if best.fix_id == "persistent_workers":
        text += _epoch_start_text(pairs)
    losses_base: tuple[float, ...] = ()
    losses_fix: tuple[float, ...] = ()
    if best.numerics:
        base, fix = next(((b, f) for b, f in pairs if b.ok and f.ok), pairs[0])
        losses_base, losses_fix = base.losses, fix.losses
        text += _loss_text(losses_base, losses_fix)
    return Verification(status="measured" if gained else "no_gain", speedup=result.median, low=result.low,
                        high=result.high, n=result.n, text=text, loss_baseline=losses_base,
                        loss_fix=losses_fix)


def _acted(candidate: Candidate, fix_trials: list[Trial]) -> bool:
    return any(candidate.fix_id in t.fixes_applied for t in fix_trials) or not fix_trials


def _ratio(value: float) -> str:
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×"


def _gain_text(result: Interval, noise: float, gained: bool, which: str = "") -> str:
    """"measured: 2.4× faster steps (2.3–2.5, n=3)" or "no measurable gain here: …"."""
    span = f"({_ratio(result.low)[:-1]}–{_ratio(result.high)[:-1]}, n={result.n})"
    if gained:
        return f"measured: {_ratio(result.median)} faster steps {span}{which}"
    if result.n < 2:
        return (f"not confirmed: {_ratio(result.median)}{which} in a single pair, not repeated within the "
                "--verify-budget (raise it to measure an interval)")
    slower = " (slower with the fix)" if result.high < 1.0 else ""
    bar = ""
    if result.low > GAIN_THRESHOLD:
        bar = (f", within the run-to-run noise of this machine (repeats of the same run differed by up to "
               f"{noise:.0%})")
    return f"no measurable gain here: {_ratio(result.median)} {span}{which}{slower}{bar}"


def _noise(pairs: Sequence[tuple[Trial, Trial]]) -> float:
    """The larger spread of the repeats: of the baselines, or of the fix runs."""
    baselines = list({id(b): b for b, _ in pairs}.values())
    return max(spread(baselines), spread([f for _, f in pairs]))


def _rates_text(pairs: list[tuple[Trial, Trial]]) -> str:
    base = [b.samples_per_second for b, _ in pairs if b.samples_per_second]
    fix = [f.samples_per_second for _, f in pairs if f.samples_per_second]
    if base and fix:
        return (f"; {statistics.median(fix):,.0f} samples/s with the fix, {statistics.median(base):,.0f} "
                "without (medians over the runs)")
    base = [b.steps_per_second for b, _ in pairs if b.steps_per_second]
    fix = [f.steps_per_second for _, f in pairs if f.steps_per_second]
    if base and fix:
        return (f"; {statistics.median(fix):.3g} steps/s with the fix, {statistics.median(base):.3g} "
                "without (medians over the runs)")
    return ""


def _epoch_start_text(pairs: list[tuple[Trial, Trial]]) -> str:
    base = [b.epoch_start_step_time for b, _ in pairs if b.epoch_start_step_time]
    fix = [f.epoch_start_step_time for _, f in pairs if f.epoch_start_step_time]
    if base and fix:
        return (f"; its gain is at each epoch start: the first step of an epoch took "
                f"{statistics.median(fix):.2f} s with it, {statistics.median(base):.2f} s without")
    return "; its gain is at each epoch start, which the short measured window did not reach"


def _loss_text(base: Sequence[float], fix: Sequence[float]) -> str:
    if not base or not fix:
        return "; the loss could not be recorded"
    def describe(values):
        return f"mean {statistics.fmean(values):.4g} (first {values[0]:.4g}, last {values[-1]:.4g})"
    return f"; loss over the window {describe(fix)} vs baseline {describe(base)}"


# -- the combined run ---------------------------------------------------------------
def _combined_summary(outcome: Outcome) -> Optional[dict]:
    if outcome.combined is None:
        return None
    result = outcome.combined_result
    fixes = outcome.combined.fixes
    names = ", ".join(f"{k}={v}" if v is not True else k for k, v in fixes.items())
    if result is None:
        text = f"the combined run ({names}) could not be measured within the budget"
        status = "not_run" if not outcome.combined_pairs else "failed"
    else:
        gained = is_measured_gain(result, outcome.combined_pairs)
        status = "measured" if gained else "no_gain"
        text = f"what your script could do with {names}: " \
            + _gain_text(result, _noise(outcome.combined_pairs), gained) \
            + _rates_text(outcome.combined_pairs)
        if any(f in NUMERICS_FIXES for f in fixes):
            base, fix = next(((b, f) for b, f in outcome.combined_pairs if b.ok and f.ok),
                             outcome.combined_pairs[0])
            text += _loss_text(base.losses, fix.losses)
    return {
        "status": status, "fixes": dict(fixes), "text": text,
        "speedup": result.median if result else None, "low": result.low if result else None,
        "high": result.high if result else None, "n": result.n if result else 0,
    }


# -- writing it out -----------------------------------------------------------------
def _report_lines(findings: Sequence[Finding], combined: Optional[dict]) -> list[str]:
    lines = []
    for f in findings:
        v = f.verification
        if v is not None and v.status in ("measured", "no_gain", "failed"):
            lines.append(f"what-if: {f.id}: {v.text}")
    if combined:
        lines.append(f"what-if: {combined['text']}")
    return lines


def _whatif_dict(outcome: Outcome, candidates: Sequence[Candidate], combined: Optional[dict],
                 budget: float, findings: Sequence[Finding]) -> dict:
    def result(key):
        r = outcome.results.get(key)
        return None if r is None else {"speedup": r.median, "low": r.low, "high": r.high, "n": r.n,
                                       "ratios": list(r.ratios)}
    return {
        "budget_s": budget,
        "elapsed_s": outcome.elapsed,
        "gain_threshold": GAIN_THRESHOLD,
        "baseline_noise": outcome.noise,
        "stopped": outcome.stopped,
        "candidates": [{"key": c.key, "fix_id": c.fix_id, "fixes": dict(c.fixes), "result": result(c.key),
                        "skipped": outcome.skipped.get(c.key)} for c in candidates],
        "combined": combined,
        "findings": {f.id: f.verification.to_dict() for f in findings if f.verification is not None},
        "trials": [t.to_dict() for t in outcome.trials],
    }


def _rewrite(result: DiagnoseResult, diagnosis: Diagnosis, outcome: Outcome, combined: Optional[dict],
             candidates: Sequence[Candidate], budget: float) -> DiagnoseResult:
    problems = list(result.problems)
    record_path = Path(result.record_path)
    whatif_path = record_path.with_name("whatif.json")
    try:
        write_json_atomic(whatif_path, _whatif_dict(outcome, candidates, combined, budget, diagnosis.findings),
                          indent=2)
    except OSError as exc:
        problems.append(f"whatif.json could not be written ({exc})")
    report_path = result.report_path or record_path.with_name("report.html")
    try:
        render(result.record, diagnosis, report_path)
    except Exception as exc:
        problems.append(f"the HTML report could not be rewritten with the what-if ({type(exc).__name__}: {exc})")
        report_path = result.report_path
    summary = _summary(result, diagnosis, report_path)
    summary["whatif"] = {"path": str(whatif_path), "budget_s": budget, "elapsed_s": round(outcome.elapsed, 1),
                         "trials": len(outcome.trials), "combined": combined, "stopped": outcome.stopped}
    for name, data in (("summary.json", summary), ("diagnosis.json", diagnosis.to_dict())):
        try:
            write_json_atomic(record_path.with_name(name), data, indent=2)
        except OSError as exc:
            problems.append(f"{name} could not be rewritten ({exc})")
    return dataclasses.replace(result, diagnosis=diagnosis, report_path=report_path, summary=summary,
                               problems=tuple(problems))


def _summary(result: DiagnoseResult, diagnosis: Diagnosis, report_path: Optional[Path]) -> dict:
    try:
        from ..report import json_summary

        return json_summary(result.record, diagnosis, report_path) | {"record": str(result.record_path)}
    except Exception:
        summary = dict(result.summary)
        by_id = {f.id: f for f in diagnosis.findings}
        summary["findings"] = [
            {**item, "verification": by_id[item["id"]].verification.to_dict()
             if item.get("id") in by_id and by_id[item["id"]].verification else None}
            for item in summary.get("findings", []) if isinstance(item, dict)
        ]
        return summary
