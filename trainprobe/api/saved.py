"""Runs already recorded: the rules applied again to a saved run.json (``trainprobe report``), and
the what-if measured on its script (``trainprobe verify``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional, Sequence

from .outputs import DiagnoseResult, TrainprobeError, load_record
from .run import DEFAULT_VERIFY_BUDGET, finish, verify

__all__ = ["report", "verify_record"]


def report(record_path: str | os.PathLike, report_path: Optional[str | os.PathLike] = None,
           rule_dirs: Sequence[Path] = ()) -> DiagnoseResult:
    """Apply the rules again to the run saved at ``record_path`` (no new run) and rewrite its report
    (at ``report_path``, by default report.html beside it), summary.json and diagnosis.json. Raises
    TrainprobeError for a file that is not a run record this version reads. A job's ``job.json`` (or
    the ``run.json`` beside it) reports the whole job again (api/job.py)."""
    from .job import JOB_FILE, finish_job, load_job

    if Path(record_path).name == JOB_FILE:
        return finish_job(load_job(record_path), Path(record_path).parent, rule_dirs,
                          report_path=Path(report_path) if report_path else None)
    record = load_record(record_path)
    return finish(record, Path(record_path), rule_dirs, report_path=Path(report_path) if report_path else None)


def verify_record(record_path: str | os.PathLike, budget: float = DEFAULT_VERIFY_BUDGET,
                  rule_dirs: Sequence[Path] = (), progress: Callable[[str], None] = lambda line: None
                  ) -> DiagnoseResult:
    """Run the script of the run saved at ``record_path`` again with each fix trainprobe can apply,
    within ``budget`` seconds, and rewrite the outputs beside it with the measurements (diagnosis.json
    keeps every trial, so a later :func:`report` shows them again). Raises TrainprobeError, before
    anything runs, for a record that cannot be read or whose script cannot be run again (gone, or
    its arguments saved as <redacted>)."""
    from ..whatif import WhatIfUnavailable
    from ..whatif.verify import target_of

    record = load_record(record_path)
    try:
        target_of(record.invocation)  # a clear error before the rules and report are redone
    except WhatIfUnavailable as exc:
        raise TrainprobeError(str(exc)) from None
    return verify(finish(record, Path(record_path), rule_dirs), budget, progress)
