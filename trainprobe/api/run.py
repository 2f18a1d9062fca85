"""What the CLI and notebooks call: diagnose a script, analyze or render a saved record.

The stages, each a function of the one before: the probe runs the script and
saves a :class:`~trainprobe.record.RunRecord`; :func:`analyze` turns it into a
:class:`~trainprobe.findings.Diagnosis`; the what-if (:func:`verify`, when
asked for) adds its measurements to the diagnosis; :func:`write_outputs`
writes the report, ``summary.json`` and ``diagnosis.json``, and is the only
function that does.

Each stage is guarded so that a failure in a later one never loses what an
earlier one produced: a rule engine error still leaves the run record and a
report; a report error still leaves the run record.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..findings import Diagnosis, Verdict, WhatIf
from ..interrupts import interrupts_held
from ..jsonio import write_json_atomic, write_problem
from ..probe.config import WindowPlan
from ..probe.refit import refit
from ..record import SCHEMA_VERSION, RunRecord

__all__ = [
    "TrainprobeError",
    "DiagnoseResult",
    "diagnose",
    "analyze",
    "verify",
    "finish",
    "render",
    "write_outputs",
    "summary_line",
    "load_record",
    "check_target",
    "trace",
    "DEFAULT_VERIFY_BUDGET",
]

DEFAULT_VERIFY_BUDGET = 180.0  # seconds for the what-if's trials


class TrainprobeError(Exception):
    """A problem with the user's input, explained in one plain sentence."""


@dataclass(frozen=True)
class DiagnoseResult:
    record: RunRecord
    record_path: Path
    diagnosis: Diagnosis
    report_path: Optional[Path]
    summary: dict
    problems: tuple[str, ...] = field(default_factory=tuple)  # stages that failed, in words
    record_saved: bool = True  # False: the final run.json could not be written (a full disk)
    interrupted: bool = False  # Ctrl-C after the script ended (the rules, the report): exit 130
    target: tuple[str, ...] = ()  # the argv as given, secrets too: kept in memory for --verify, never saved

    @property
    def outputs_lost(self) -> bool:
        """Whether the record or the report could not be written: the command must not exit 0."""
        return not self.record_saved or self.report_path is None


def check_target(target: Sequence[str]) -> None:
    """Refuse a target that plain python could not start either, with a clear reason."""
    if not target:
        raise TrainprobeError("no script given: trainprobe diagnose SCRIPT [ARGS]... (or -m MODULE)")
    if target[0] == "-m":
        if len(target) < 2:
            raise TrainprobeError("-m needs a module name")
        return
    script = Path(target[0])
    if not script.exists():
        raise TrainprobeError(f"script not found: {target[0]}")
    if script.is_dir() and not (script / "__main__.py").exists():
        raise TrainprobeError(f"{target[0]} is a folder without a __main__.py")
    _notebook_plan(target)


def _notebook_plan(target: Sequence[str]):
    """A notebook's plan (its cells, the lines it will not run); None for a script."""
    from ..notebook.outcome import notebook_plan
    from ..notebook.read import NotebookError

    try:
        return notebook_plan(target)
    except NotebookError as exc:
        raise TrainprobeError(str(exc)) from None


def _with_notebook_notes(probe, target: Sequence[str]):
    """A notebook's run: the lines it did not run among the notes, a failure named by its cell."""
    from ..notebook.outcome import annotate_record

    plan = _notebook_plan(target)
    if plan is None:
        return probe
    record = annotate_record(probe.record, plan)
    try:
        record.save(probe.record_path)
    except OSError:
        pass  # the notes are lost from run.json, not from the report
    return replace(probe, record=record)


def output_folder(out_dir: str | os.PathLike) -> Path:
    """The folder the user named for a new run, made now, before anything runs: a path under a file,
    an existing file, a folder that cannot be made or one that already holds a run is refused."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise TrainprobeError(f"cannot use {out} as the output folder: it is a file")
    if (out / "run.json").exists():
        raise TrainprobeError(f"{out} already holds a run; choose another output folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TrainprobeError(f"cannot create output folder {out}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK):
        raise TrainprobeError(f"cannot write to the output folder {out}")
    return out


def default_folder(target: Sequence[str]) -> Path:
    from ..probe.launch import default_out_dir

    try:
        return default_out_dir(target)
    except OSError as exc:
        raise TrainprobeError(f"cannot create an output folder under ./trainprobe-runs: {exc.strerror or exc}") from None


def load_record(path: str | os.PathLike) -> RunRecord:
    """A saved run record, checked: a file that is not one, or one of a newer schema than this
    version reads, is refused with what is wrong (and which field, for a damaged record)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise TrainprobeError(f"run record not found: {path}") from None
    except IsADirectoryError:
        raise TrainprobeError(f"{path} is a folder; give its run.json") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TrainprobeError(f"cannot read {path}: {exc}") from None
    except ValueError as exc:
        raise TrainprobeError(f"{path} is not a trainprobe run record (not JSON: {exc})") from None
    if not isinstance(data, dict) or "schema_version" not in data:
        what = "an object without schema_version" if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        raise TrainprobeError(f"{path} is not a trainprobe run record ({what})")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise TrainprobeError(f"{path} is not a trainprobe run record (schema_version {version!r})")
    if version > SCHEMA_VERSION:
        raise TrainprobeError(f"{path} was written by a newer trainprobe (record schema {version}; this version "
                              f"reads schema {SCHEMA_VERSION}): upgrade trainprobe to read it")
    try:
        return RunRecord.from_dict(data)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise TrainprobeError(f"{path} is a damaged run record: {exc}") from None


def _unknown(reason: str) -> Diagnosis:
    return Diagnosis(verdict=Verdict(category="unknown", headline=reason))


def analyze(record: RunRecord, rule_dirs: Sequence[Path] = ()) -> Diagnosis:
    """Apply the rules to a record. Never raises: a failing engine gives an 'unknown' verdict."""
    try:
        from ..engine import diagnose as run_rules
    except ImportError as exc:
        return _unknown(f"the rule engine is unavailable ({exc})")
    try:
        diagnosis = run_rules(record, extra_rule_dirs=tuple(rule_dirs))
    except Exception as exc:  # a bug in a rule must not cost the user their report
        return _unknown(f"the rule engine failed ({type(exc).__name__}: {exc}); the measurements are below")
    if record.job is not None:  # a whole job: its failed rank or straggler leads
        from ..job.run import job_verdict

        diagnosis = job_verdict(record.job, diagnosis)
    return diagnosis


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
    if measured is not diagnosis and record.job is not None:  # a whole job: its straggler still leads
        from ..job.run import job_verdict

        measured = job_verdict(record.job, measured)
    return measured


def render(record: RunRecord, diagnosis: Diagnosis, path: Path, record_path: Optional[Path] = None) -> Path:
    from ..report import write_html

    return write_html(record, diagnosis, path, record_path=record_path)


def _summary(record: RunRecord, diagnosis: Diagnosis, record_path: Path, report_path: Optional[Path]) -> dict:
    try:
        from ..report import json_summary

        return json_summary(record, diagnosis, report_path, record_path)
    except Exception:  # pylint: disable=broad-except  # a smaller summary beats none
        return {
            "verdict": diagnosis.verdict.to_dict(),
            "findings": [
                {"id": f.id, "severity": f.severity, "category": f.category, "message": f.message}
                for f in diagnosis.findings
            ],
            "outcome": record.outcome.to_dict(),
            "record": str(record_path),
            "report": str(report_path) if report_path else None,
        }


def write_outputs(record: RunRecord, record_path: Path, diagnosis: Diagnosis,
                  report_path: Optional[Path] = None, problems: Sequence[str] = ()) -> DiagnoseResult:
    """Write the report, summary.json and diagnosis.json beside the saved record: every output file.

    The record itself is saved by the probe as it runs. A file that cannot be written becomes a
    line in ``problems``; the others are still written.
    """
    problems = list(problems)
    report_path = report_path or record_path.with_name("report.html")
    try:
        render(record, diagnosis, report_path, record_path)
    except OSError as exc:
        problems.append(f"the HTML report could not be written: {write_problem(report_path, exc)}")
        report_path = None
    except Exception as exc:  # pylint: disable=broad-except  # the record and the summary still stand
        problems.append(f"the HTML report could not be written ({type(exc).__name__}: {exc})")
        report_path = None
    summary = _summary(record, diagnosis, record_path, report_path)
    for name, data in (("summary.json", summary), ("diagnosis.json", diagnosis.to_dict())):
        try:
            write_json_atomic(record_path.with_name(name), data, indent=2)
        except OSError as exc:
            problems.append(write_problem(record_path.with_name(name), exc))
    return DiagnoseResult(record, record_path, diagnosis, report_path, summary, tuple(problems))


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
    try:
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
    measurements on the diagnosis and rewrite the outputs."""
    from ..whatif import WhatIfUnavailable, run_whatif

    try:
        whatif = run_whatif(result.record, result.diagnosis, Path(result.record_path).parent, budget,
                            progress, run, target=result.target or None)
    except WhatIfUnavailable as exc:
        return replace(result, problems=result.problems + (f"--verify: {exc}",))
    again = write_outputs(result.record, result.record_path, _with_whatif(result.record, result.diagnosis, whatif),
                          result.report_path, result.problems)
    return replace(again, record_saved=result.record_saved, target=result.target)


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
) -> DiagnoseResult:
    """Run ``target`` under the probe, apply the rules, write run.json and report.html. Secret-looking
    argument values are saved as <redacted> unless ``keep_args`` (see probe/redact.py)."""
    from ..probe.launch import ProbeOptions, ProbeStartError, run_probe

    check_target(target)
    skipped = _notebook_plan(target)
    if skipped is not None and skipped.skipped:
        from ..notebook.read import skipped_note

        progress(skipped_note(skipped) or "")
    out = output_folder(out_dir) if out_dir else default_folder(target)
    options = ProbeOptions(out_dir=out, plan=plan, timeout=timeout, trace_path=trace_path,
                           data_paths=tuple(data_paths), keep_args=keep_args)
    try:
        probe = run_probe(target, options, progress)
    except ProbeStartError as exc:
        raise TrainprobeError(str(exc)) from None
    trainers = _trainers(probe, rule_dirs)  # the script trained in processes it started (hogwild)
    if trainers is not None:
        return replace(trainers, target=tuple(target))
    again = None if probe.interrupted else refit(probe.record, plan)
    if again is not None:
        probe = _run_again(target, options, again, probe, progress)
    probe = _with_notebook_notes(probe, target)
    result = finish(probe.record, probe.record_path, rule_dirs, problems=probe.problems,
                    record_saved=probe.record_saved, interrupted=probe.interrupted)
    return replace(result, target=tuple(target))


def _trainers(probe, rule_dirs: Sequence[Path]) -> Optional[DiagnoseResult]:
    """The job of the training processes the script started, diagnosed from them; None when it
    started none that trained (trainprobe/job/trainers.py)."""
    try:
        from ..job.trainers import trainer_job

        return trainer_job(probe.record, Path(probe.record_path), rule_dirs)
    except Exception:  # pylint: disable=broad-except  # the main process's diagnosis still stands
        return None


def _run_again(target: Sequence[str], options, plan: WindowPlan, first, progress: Callable[[str], None]):
    """The script ended before its profiling windows, or while still warming up: run it once more with
    windows fitted to the steps it made (at most the script's own length again), and say so in the
    record."""
    from ..probe.launch import run_probe
    from ..probe.refit import FIRST_RUN, all_warmup, set_aside

    steps = sum(1 for s in first.record.steps if not s.validation)
    before = "while trainprobe was still warming up" if all_warmup(first.record) else \
        "before trainprobe's profiling windows"
    progress(f"the script ended after {steps} steps, {before}; running it once more with windows fitted to "
             f"{steps} steps")
    set_aside(Path(options.out_dir))
    second = run_probe(target, replace(options, plan=plan), progress)
    windows = ", ".join(f"{name} {count if on else 'none'}" for name, on, count in (
        ("torch.profiler", plan.profiler, plan.profile_min_steps),
        ("cProfile", plan.cprofile, plan.cprofile_min_steps)))
    counting = f"counting {plan.census_steps}, " if plan.census else ""
    note = (f"the script ended after {steps} steps in a first run, {before} (its record is {FIRST_RUN}/run.json); "
            f"this is a second run with windows fitted to those steps: warm-up {plan.warmup_steps}, "
            f"{counting}steady {plan.steps}, {windows}")
    # What the first run saw that the second did not (how the script ended by itself: the second run is
    # stopped by trainprobe once its windows are done) stays in the record.
    earlier = tuple(f"in the first run, {n}" for n in first.record.notes if n not in second.record.notes)
    record = replace(second.record, notes=(note,) + earlier + second.record.notes)
    try:
        record.save(second.record_path)
    except OSError:
        pass  # the note is lost from run.json, not from the report
    return replace(second, record=record)


def trace(paths: Sequence[str | os.PathLike], out_dir: Optional[Path] = None,
          rule_dirs: Sequence[Path] = ()) -> DiagnoseResult:
    """Diagnose torch.profiler trace files recorded anywhere: the same outputs as ``diagnose``.

    Several ranks' traces make one job: each rank gets its record and diagnosis under
    ``rank<N>/``, and the job's report (in ``out_dir``) is the slowest rank's, with every rank's
    table. Raises TrainprobeError for a path or file that cannot be read as a trace."""
    from ..trace.job import rank_table
    from ..trace.read import TraceError
    from ..trace.record import read_traces

    try:
        runs = read_traces(paths)
    except TraceError as exc:
        raise TrainprobeError(str(exc)) from None
    out = output_folder(out_dir) if out_dir else default_folder([str(Path(paths[0]).name).split(".")[0] or "trace"])
    if len(runs) == 1:
        record_path = out / "run.json"
        runs[0].record.save(record_path)
        return finish(runs[0].record, record_path, rule_dirs)
    diagnosed = []
    for run in runs:
        folder = out / (f"rank{run.rank}" if run.rank is not None else run.files[0].name.split(".")[0])
        folder.mkdir(parents=True, exist_ok=True)
        run.record.save(folder / "run.json")
        result = finish(run.record, folder / "run.json", rule_dirs)
        diagnosed.append((run.rank, run.files, run.record, result.diagnosis))
    table = rank_table(diagnosed)
    slowest = next((i for i, row in enumerate(table) if row.slowest), 0)
    # The job's report is the slowest rank's: its record with every rank's table, and its diagnosis
    # as made above (the table changes no fact, so the rules are not run again).
    _, _, rank_record, rank_diagnosis = diagnosed[slowest]
    record = replace(rank_record, ranks=table)
    record_path = out / "run.json"
    record.save(record_path)
    return write_outputs(record, record_path, rank_diagnosis)


def summary_line(result: DiagnoseResult) -> str:
    return json.dumps(result.summary, default=str)
