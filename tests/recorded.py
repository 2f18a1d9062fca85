"""The recorded runs under tests/data/runs, each loaded and diagnosed once per test session.

Diagnosing a recorded run (the verdict's stability check resamples its steps a hundred times)
takes about half a second; several test files judge every recorded run, so they share one
diagnosis per run. Records and diagnoses are frozen, so sharing them is safe.
"""

from __future__ import annotations

import functools
from pathlib import Path

from trainprobe.engine import diagnose
from trainprobe.findings import Diagnosis
from trainprobe.record import RunRecord

RUNS_DIR = Path(__file__).parent / "data" / "runs"
GALLERY_RUNS = sorted(RUNS_DIR.glob("*.run.json"))  # our sample scripts and test scripts
ALL_RUNS = sorted(RUNS_DIR.rglob("*.run.json"))  # and real/: third-party scripts


@functools.cache
def load(path: Path) -> RunRecord:
    return RunRecord.load(path)


@functools.cache
def diagnosed(path: Path) -> tuple[RunRecord, Diagnosis]:
    record = load(path)
    return record, diagnose(record)
