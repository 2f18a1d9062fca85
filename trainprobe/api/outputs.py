"""What every orchestration of the api shares: its error, its result, output folders, saved records,
the rules on a record, and the one writer of a diagnosis's outputs.

Each stage is guarded so that a failure in a later one never loses what an earlier one produced: a
rule engine error still leaves the run record and a report; a report error still leaves the run
record.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from ..findings import Diagnosis, Verdict
from ..jsonio import write_json_atomic, write_problem
from ..record import RunRecord

__all__ = ["TrainprobeError", "DiagnoseResult", "check_target", "output_folder", "default_folder", "load_record",
           "analyze", "render", "write_outputs", "summary_line"]


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
    whatif_failed: bool = False  # the what-if was asked for and measured nothing (why: among problems)

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
    from ..record_file import RecordFileError, read_record

    try:
        return read_record(path)
    except RecordFileError as exc:
        raise TrainprobeError(str(exc)) from None


def _unknown(reason: str) -> Diagnosis:
    return Diagnosis(verdict=Verdict(category="unknown", headline=reason))


def analyze(record: RunRecord, rule_dirs: Sequence[Path] = ()) -> Diagnosis:
    """Apply the rules to a record. Never raises: a failing engine gives an 'unknown' verdict."""
    try:
        from ..engine import apply_rules as run_rules
    except ImportError as exc:
        return _unknown(f"the rule engine is unavailable ({exc})")
    try:
        diagnosis = run_rules(record, extra_rule_dirs=tuple(rule_dirs))
    except Exception as exc:  # a bug in a rule must not cost the user their report
        return _unknown(f"the rule engine failed ({type(exc).__name__}: {exc}); the measurements are below")
    return diagnosis


def render(record: RunRecord, diagnosis: Diagnosis, path: Path, record_path: Optional[Path] = None) -> Path:
    from ..report import write_html

    return write_html(record, diagnosis, path, record_path=record_path)


def _summary(record: RunRecord, diagnosis: Diagnosis, record_path: Path, report_path: Optional[Path]) -> dict:
    try:
        from ..report import json_summary

        return json_summary(record, diagnosis, report_path, record_path)
    except Exception:  # pylint: disable=broad-except  # a smaller summary beats none
        # json_summary's keys, fewer of them: a script reading --json finds each where it always is.
        v, o = diagnosis.verdict, record.outcome
        return {
            "script": record.invocation.script or record.invocation.module,
            "verdict": {"category": v.category, "headline": v.headline, "primary_finding": v.primary_finding},
            "findings": [
                {"id": f.id, "severity": f.severity, "category": f.category, "title": f.title,
                 "message": f.message, "advice": f.advice}
                for f in diagnosis.findings
            ],
            "outcome": {"status": o.status, "exit_code": o.exit_code, "signal": o.signal,
                        "exception_type": o.exception_type, "reason": o.reason, "duration_s": o.duration,
                        "oom": o.oom},
            "rule_errors": list(diagnosis.rule_errors),
            "report_path": str(report_path) if report_path is not None else None,
            "record_path": str(record_path) if record_path is not None else None,
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


def summary_line(result: DiagnoseResult) -> str:
    return json.dumps(result.summary, default=str)
