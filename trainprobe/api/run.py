"""Diagnose a script (or read traces): the main line, from the probe to the outputs.

The stages, each a function of the one before: the probe runs the script and
saves a :class:`~trainprobe.record.RunRecord`; :func:`analyze` turns it into a
:class:`~trainprobe.findings.Diagnosis`; the what-if (:func:`verify`, when
asked for) adds its measurements to the diagnosis; :func:`write_outputs`
writes the report, ``summary.json`` and ``diagnosis.json``, and is the only
function that does (api/outputs.py, shared with the other orchestrations).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..findings import Diagnosis, WhatIf
from ..interrupts import interrupts_held
from ..probe.config import WindowPlan
from ..probe.leftovers import listing
from ..probe.refit import refit
from ..record import RunRecord
from ..record_file import write_record
from .outputs import (DiagnoseResult, TrainprobeError, _notebook_plan, _unknown, analyze, check_target,
                      default_folder, output_folder, write_outputs)

__all__ = ["diagnose", "verify", "finish", "trace", "DEFAULT_VERIFY_BUDGET"]

DEFAULT_VERIFY_BUDGET = 180.0  # seconds for the what-if's trials


def _with_notebook_notes(probe, target: Sequence[str]):
    """A notebook's run: the lines it did not run among the notes, a failure named by its cell."""
    from ..notebook.outcome import annotate_record

    plan = _notebook_plan(target)
    if plan is None:
        return probe
    record = annotate_record(probe.record, plan)
    write_record(record, probe.record_path)  # if not, the notes are lost from run.json, not from the report
    return replace(probe, record=record)


def _with_whatif(record: RunRecord, diagnosis: Diagnosis, whatif: Optional[WhatIf]) -> Diagnosis:
    """The diagnosis with the what-if's measurements: on its findings, and in place of the estimates
    they tested, so the ranking and the verdict follow what was measured (engine/measured.py).
    Never raises: without the re-ranking the measurements are still shown on their findings."""
    diagnosis = diagnosis.with_whatif(whatif)
    if whatif is None:
        return diagnosis
    try:
        from ..engine.measured import with_measured_gains

        measured = with_measured_gains(diagnosis)
    except Exception:  # pylint: disable=broad-except  # the estimates and the measurements still stand
        return diagnosis
    if measured is not diagnosis and diagnosis.job is not None:  # a whole job: its straggler still leads
        from ..engine import framed

        measured = framed(measured)
    return measured


def _saved_whatif(record_path: Path) -> Optional[WhatIf]:
    """The what-if saved with an earlier diagnosis of this record, if any."""
    path = record_path.with_name("diagnosis.json")
    if not path.exists():
        return None
    try:
        return Diagnosis.load(path).whatif
    except (OSError, ValueError, TypeError, KeyError):
        return None  # an unreadable old diagnosis: the new one stands without it


def finish(record: RunRecord, record_path: Path, rule_dirs: Sequence[Path] = (),
           report_path: Optional[Path] = None, problems: Sequence[str] = (), record_saved: bool = True,
           interrupted: bool = False) -> DiagnoseResult:
    """Rules, report and summary for a record already saved at ``record_path``.

    A what-if measured earlier on this record (``trainprobe verify``) is kept: its verifications
    go back on the findings they belong to. Ctrl-C during the rules stops them, and the report is
    still written (with no verdict); Ctrl-C while the files are written waits until they are."""
    problems = list(problems)
    from .job import job_beside, judge

    try:
        job = job_beside(record, Path(record_path))  # a job's run.json: the job is judged whole
    except TrainprobeError as exc:
        job = None
        problems.append(f"the job beside {record_path} could not be read ({exc}): this is its lead rank alone")
    try:
        if job is not None:
            diagnosis = judge(job, rule_dirs)
            record = job.as_run(diagnosis.job.subject if diagnosis.job is not None else None)
        else:
            diagnosis = analyze(record, rule_dirs)
    except KeyboardInterrupt:
        interrupted = True
        diagnosis = _unknown("Ctrl-C stopped the rules before they finished: no verdict. The measurements "
                             "below are complete; `trainprobe report` on run.json applies the rules again")
        problems.append("Ctrl-C during the rules: the record and a report without a verdict are written")
    if diagnosis.verdict.category == "unknown" and "rule engine" in diagnosis.verdict.headline:
        problems.append(diagnosis.verdict.headline)
    with interrupts_held() as late:
        diagnosis = _with_whatif(record, diagnosis, _saved_whatif(Path(record_path)))
        result = write_outputs(record, Path(record_path), diagnosis, report_path, problems)
    return replace(result, record_saved=record_saved, interrupted=interrupted or bool(late))


def verify(result: DiagnoseResult, budget: float = DEFAULT_VERIFY_BUDGET,
           progress: Callable[[str], None] = lambda line: None, run: Optional[Callable] = None
           ) -> DiagnoseResult:
    """The what-if stage: measure each injectable fix of ``result``'s findings on its script, put the
    measurements on the diagnosis and rewrite the outputs. A what-if that measured nothing (the script
    cannot be run again, its baseline trial failed) is ``whatif_failed``, with why among the problems;
    one that found no fix to measure, or fixes that did not pay, measured what there was."""
    from ..whatif import WhatIfUnavailable, run_whatif

    if result.interrupted:  # Ctrl-C (during the rules, after the script) asked trainprobe to stop
        return result
    try:
        whatif = run_whatif(result.record, result.diagnosis, Path(result.record_path).parent, budget,
                            progress, run, target=result.target or None)
    except WhatIfUnavailable as exc:
        return replace(result, problems=result.problems + (f"--verify: {exc}",), whatif_failed=True)
    # The trials end early on Ctrl-C (what was measured stands) or when the baseline fails (nothing was).
    failed = whatif.stopped is not None and whatif.stopped != "interrupted"
    problems = result.problems + ((f"--verify: {whatif.stopped}",) if failed else ())
    again = write_outputs(result.record, result.record_path, _with_whatif(result.record, result.diagnosis, whatif),
                          result.report_path, problems)
    return replace(again, record_saved=result.record_saved, target=result.target, whatif_failed=failed,
                   interrupted=whatif.stopped == "interrupted")


def diagnose(
    target: Sequence[str],
    out_dir: Optional[Path] = None,
    plan: WindowPlan = WindowPlan(),
    timeout: Optional[float] = None,
    trace_path: Optional[Path] = None,
    rule_dirs: Sequence[Path] = (),
    data_paths: Sequence[str] = (),
    progress: Callable[[str], None] = lambda line: None,
    keep_args: bool = False,
    verify_budget: Optional[float] = None,
) -> DiagnoseResult:
    """Run ``target`` under the probe, apply the rules, write run.json and report.html. Secret-looking
    argument values are saved as <redacted> unless ``keep_args`` (see probe/redact.py). With a
    ``verify_budget`` (seconds), the what-if (:func:`verify`) measures the fixes it can apply."""
    from ..probe.launch import ProbeOptions, ProbeStartError, run_probe

    check_target(target)
    skipped = _notebook_plan(target)
    if skipped is not None and skipped.skipped:
        from ..notebook.read import skipped_note

        progress(skipped_note(skipped) or "")
    out = output_folder(out_dir) if out_dir else default_folder(target)
    options = ProbeOptions(out_dir=out, plan=plan, timeout=timeout, trace_path=trace_path,
                           data_paths=tuple(data_paths), keep_args=keep_args)
    before = listing(Path.cwd())  # the script's folder as the first run finds it (probe/leftovers.py)
    try:
        probe = run_probe(target, options, progress)
    except ProbeStartError as exc:
        raise TrainprobeError(str(exc)) from None
    trainers = _trainers(probe, rule_dirs)  # the script trained in processes it started (hogwild)
    if trainers is not None:
        return _verified(replace(trainers, target=tuple(target)), verify_budget, progress)
    again = None if probe.interrupted else refit(probe.record, plan)
    if again is not None:
        probe = _run_again(target, options, again, probe, progress, before)
    probe = _with_notebook_notes(probe, target)
    result = finish(probe.record, probe.record_path, rule_dirs, problems=probe.problems,
                    record_saved=probe.record_saved, interrupted=probe.interrupted)
    return _verified(replace(result, target=tuple(target)), verify_budget, progress)


def _verified(result: DiagnoseResult, budget: Optional[float], progress: Callable[[str], None]) -> DiagnoseResult:
    return result if budget is None else verify(result, budget, progress)


def _trainers(probe, rule_dirs: Sequence[Path]) -> Optional[DiagnoseResult]:
    """The job of the training processes the script started, judged from them; None when it started
    none that trained (job/trainers.py)."""
    try:
        from ..job.trainers import trainer_job
        from .job import finish_job

        job = trainer_job(probe.record, Path(probe.record_path))
        return finish_job(job, Path(probe.record_path).parent, rule_dirs) if job is not None else None
    except Exception:  # pylint: disable=broad-except  # the main process's diagnosis still stands
        return None


def _run_again(target: Sequence[str], options, plan: WindowPlan, first, progress: Callable[[str], None],
               folder_before: Optional[frozenset[str]] = None):
    """The script ended before its profiling windows, or while still warming up: run it once more with
    windows fitted to the steps it made (at most the script's own length again), and say so in the
    record. A second run that fails on what the first left in the script's folder (``folder_before``: its
    names as the first run found it) is tried once more with those set aside (:func:`_without_leftovers`)."""
    from ..probe.launch import run_probe
    from ..probe.refit import FIRST_RUN, all_warmup, batches_only, second_run_lost, set_aside, training_steps

    if plan.steps_by_batches:
        steps = batches_only(first.record) or 0
        before = ("without a step trainprobe could see (no backward(), optimizer.step() or nn.Module forward), "
                  "after fetching DataLoader batches")
        progress(f"the script ended {before}; running it once more, taking each DataLoader batch that begins an "
                 f"iteration as a step")
    else:
        steps = training_steps(first.record)
        before = "while trainprobe was still warming up" if all_warmup(first.record) else \
            "before trainprobe's profiling windows"
        progress(f"the script ended after {steps} steps, {before}; running it once more with windows fitted to "
                 f"{steps} steps")
    set_aside(Path(options.out_dir))
    second = run_probe(target, replace(options, plan=plan), progress)
    set_aside_note = None
    if second_run_lost(first.record, second.record):
        third = _without_leftovers(target, replace(options, plan=plan), second, folder_before, progress)
        if third is None or second_run_lost(first.record, third[0].record):
            lost = third[0].record if third is not None else second.record
            progress(f"the second run ended before measuring more ({_ending(lost)}); the report is from "
                     f"the first run")
            if third is not None:
                _restore_leftovers(Path(options.out_dir), folder_before)
            return _first_stands(first, lost, Path(options.out_dir), f"the script ended after {steps} "
                                 f"steps, {before}")
        second, set_aside_note = third
    windows = ", ".join(f"{name} {count if on else 'none'}" for name, on, count in (
        ("torch.profiler", plan.profiler, plan.profile_min_steps),
        ("cProfile", plan.cprofile, plan.cprofile_min_steps)))
    counting = f"counting {plan.census_steps}, " if plan.census else ""
    if plan.steps_by_batches:
        note = (f"a first run ended {before} ({steps} or more from each loader that gave any; its record is "
                f"{FIRST_RUN}/run.json); this second run takes each batch of the DataLoader that begins an "
                f"iteration as the next step's start")
    else:
        note = (f"the script ended after {steps} steps in a first run, {before} (its record is "
                f"{FIRST_RUN}/run.json); this is a {'third' if set_aside_note else 'second'} run with windows "
                f"fitted to those steps: warm-up {plan.warmup_steps}, {counting}steady {plan.steps}, {windows}")
    # What the first run saw that the second did not (how the script ended by itself: the second run is
    # stopped by trainprobe once its windows are done) stays in the record.
    earlier = tuple(f"in the first run, {n}" for n in first.record.notes if n not in second.record.notes)
    # The second run is stopped once its windows are done: how long the script is, the first run said.
    invocation = replace(second.record.invocation,
                         options={**second.record.invocation.options, "first_run_steps": steps})
    if set_aside_note:
        note += f"; {set_aside_note}"
    record = replace(second.record, notes=(note,) + earlier + second.record.notes, invocation=invocation)
    write_record(record, second.record_path)  # if not, the note is lost from run.json, not from the report
    return replace(second, record=record)


def _without_leftovers(target: Sequence[str], options, second, folder_before: Optional[frozenset[str]],
                       progress: Callable[[str], None]):
    """The second run ended before measuring more, maybe on what the first run left in the script's folder (a
    checkpoint it resumes from, a results folder it asks about): those entries, and the second run's, are set
    aside in first-run/script-folder/ (moved, probe/leftovers.py), the second run's files go to second-run/, and
    the script runs a third time from the folder as the first run found it. (the third run, the note that says
    so); None where the runs made nothing there that could be moved."""
    from ..probe.launch import run_probe
    from ..probe.leftovers import SCRIPT_FILES, made_since, set_aside_made
    from ..probe.refit import FIRST_RUN, SECOND_RUN, set_aside

    out, folder = Path(options.out_dir), Path.cwd()
    made = made_since(folder, folder_before, out)
    if not made:
        return None
    moved, left = set_aside_made(folder, made, out / FIRST_RUN / SCRIPT_FILES)
    if not moved:
        return None
    set_aside(out, SECOND_RUN)
    names = ", ".join(moved)
    progress(f"the second run ended before measuring more ({_ending(second.record)}); running it once more with "
             f"what the runs made in the script's folder set aside ({names})")
    third = run_probe(target, options, progress)
    kept = f"; {', '.join(left)} could not be moved and stayed" if left else ""
    note = (f"a second run ended before measuring more ({_ending(second.record)}; its files are in {SECOND_RUN}/), "
            f"on what the first run left in the script's folder: this is a third run, with {names} moved to "
            f"{FIRST_RUN}/{SCRIPT_FILES}/ so that it began from the folder as the first run found it{kept}")
    return third, note


def _restore_leftovers(out: Path, folder_before: Optional[frozenset[str]]) -> None:
    """The third run was lost too: what it made in the script's folder goes to second-run/script-folder/, and
    what the first run made comes back, so that the folder is as the first run (which stands) left it."""
    from ..probe.leftovers import SCRIPT_FILES, bring_back, made_since, set_aside_made
    from ..probe.refit import FIRST_RUN, SECOND_RUN

    folder = Path.cwd()
    set_aside_made(folder, made_since(folder, folder_before, out), out / SECOND_RUN / SCRIPT_FILES)
    bring_back(folder, out / FIRST_RUN / SCRIPT_FILES)


def _ending(record: RunRecord) -> str:
    from ..report.sections import exception_text

    return exception_text(record.outcome) or record.outcome.reason


def _first_stands(first, second: RunRecord, out_dir: Path, ended: str):
    """The second run ended before the steps the first made, by an error (a script that refuses the output
    folder its first run left) or by itself (one that resumes from its first run's checkpoint): the first
    run's record and files stand, with a note that says why; the second run's files go to second-run/."""
    from ..probe.refit import SECOND_RUN, put_back, training_steps

    path = put_back(out_dir)
    if second.outcome.status == "completed":  # it ended by itself, having trained less than before
        made = training_steps(second)
        ending = f"the script ran to its end after {made} step{'' if made == 1 else 's'}"
        cause = "a script that resumes from the checkpoint its first run saved, and so trains nothing again"
    else:
        ending = _ending(second)
        cause = "a script that will not run twice in one folder, one that refuses the output folder its first run made"
    note = (f"{ended}; a second run with windows fitted to those steps ended before measuring more: {ending} (its "
            f"files are in {SECOND_RUN}/); this report is from the first run, without the profiles the second was "
            f"to add ({cause}, ends so)")
    record = replace(first.record, notes=(note,) + first.record.notes)
    lost = write_record(record, path)
    return replace(first, record=record, record_path=path,
                   problems=tuple(first.problems) + ((lost,) if lost else ()))


def trace(paths: Sequence[str | os.PathLike], out_dir: Optional[Path] = None,
          rule_dirs: Sequence[Path] = ()) -> DiagnoseResult:
    """Diagnose torch.profiler trace files recorded anywhere: the same outputs as ``diagnose``.

    Several ranks' traces make one job: each rank gets its record and diagnosis under
    ``rank<N>/``, and the job's report (in ``out_dir``) is the slowest rank's, with every rank's
    table. Raises TrainprobeError for a path or file that cannot be read as a trace."""
    from ..trace.read import TraceError
    from ..trace.record import read_traces

    try:
        runs = read_traces(paths)
    except TraceError as exc:
        raise TrainprobeError(str(exc)) from None
    out = output_folder(out_dir) if out_dir else default_folder([str(Path(paths[0]).name).split(".")[0] or "trace"])
    if len(runs) == 1:
        record_path = out / "run.json"
        lost = write_record(runs[0].record, record_path)
        return finish(runs[0].record, record_path, rule_dirs, problems=[lost] if lost else [],
                      record_saved=lost is None)
    from ..job import torchrun_job
    from ..record_job import RankRecord
    from .job import finish_job

    ranks = []
    for run in runs:
        folder = out / (f"rank{run.rank}" if run.rank is not None else run.files[0].name.split(".")[0])
        folder.mkdir(parents=True, exist_ok=True)
        if write_record(run.record, folder / "run.json") is None:  # the job's record holds it either way
            finish(run.record, folder / "run.json", rule_dirs)  # each rank's own report, as for one trace
        ranks.append(RankRecord(rank=run.rank, record=run.record, folder=str(folder),
                                files=tuple(str(f) for f in run.files)))
    command = " ".join(str(p) for p in paths)
    return finish_job(torchrun_job(ranks, command, (), launcher="traces", outcome=runs[0].record.outcome), out,
                      rule_dirs)
