"""The recorded runs under tests/data/runs, each loaded and diagnosed once per test session.

Diagnosing a recorded run (the verdict's stability check resamples its steps a hundred times)
takes about half a second; several test files judge every recorded run, so they share one
diagnosis per run. Records and diagnoses are frozen, so sharing them is safe.
"""

from __future__ import annotations

import functools
from pathlib import Path

from trainprobe.engine import apply_rules as diagnose, judge_job
from trainprobe.findings import Diagnosis
from trainprobe.record import RunRecord
from trainprobe.record_job import JobRecord

RUNS_DIR = Path(__file__).parent / "data" / "runs"
GALLERY_RUNS = sorted(RUNS_DIR.glob("*.run.json"))  # our sample scripts and test scripts
# and real/: third-party scripts. Not real_test/ nor real_test2/, the held-out test sets:
# benchmarks/accuracy.py scores them once the rules of a session are final, and no test may press the
# rules towards them.
ALL_RUNS = sorted(p for p in (*RUNS_DIR.rglob("*.run.json"), *RUNS_DIR.rglob("*.run.json.gz"))  # gpu/: kept gzipped
                  if not any(part.startswith("real_test") for part in p.relative_to(RUNS_DIR).parts))


def _kept(path: Path) -> Path:
    """``path``, or its gzipped copy where the record is kept gzipped (the held-out sets, since their plain
    records would crowd the repository past what travels to a lent GPU machine)."""
    path = Path(path)
    zipped = path.with_name(path.name + ".gz")
    return zipped if not path.exists() and zipped.exists() else path


@functools.cache
def load(path: Path) -> RunRecord:
    return RunRecord.load(_kept(path))


@functools.cache
def diagnosed(path: Path) -> tuple[RunRecord, Diagnosis]:
    record = load(path)
    return record, diagnose(record)


TRACES_DIR = Path(__file__).parent / "data" / "traces"  # real GPU traces by others


@functools.cache
def trace_events(path: Path):
    """A recorded trace's events and metadata, parsed once per session."""
    from trainprobe.trace.read import TraceReader

    reader = TraceReader(path)
    events = tuple(reader.events())
    return events, reader.meta


@functools.cache
def trace_digest(path: Path):
    """A recorded trace's events summarized (trace/summarize.py), once per session."""
    from trainprobe.trace.summarize import digest_events

    return digest_events(trace_events(path)[0], str(path))


@functools.cache
def trace_record(name: str) -> RunRecord:
    """``NAME.pt.trace.json.gz`` under tests/data/traces, read as `trainprobe trace` reads it."""
    return trace_record_at(TRACES_DIR / f"{name}.pt.trace.json.gz")


@functools.cache
def trace_record_at(path: Path) -> RunRecord:
    """A trace file read as `trainprobe trace` reads one file (one rank)."""
    from trainprobe.trace.record import record_from_digest

    return record_from_digest(trace_digest(path), trace_events(path)[1], [path])


@functools.cache
def trace_diagnosed(name: str) -> tuple[RunRecord, Diagnosis]:
    record = trace_record(name)
    return record, diagnosis_of(record)


_DIAGNOSES: dict[int, tuple[RunRecord, Diagnosis]] = {}


def diagnosis_of(record: RunRecord) -> Diagnosis:
    """The diagnosis of a record object shared between tests (a recorded trace's record is one object
    per session), made once; other records are diagnosed each time."""
    held = _DIAGNOSES.get(id(record))
    if held is None or held[0] is not record:
        judged = judge_job(record) if isinstance(record, JobRecord) else diagnose(record)
        held = _DIAGNOSES[id(record)] = (record, judged)
    return held[1]


JOBS_DIR = Path(__file__).parent / "data" / "jobs"  # recorded 2-rank torchrun jobs


@functools.cache
def job(name: str) -> JobRecord:
    """A recorded job (tests/data/jobs/NAME), read from its ranks' folders as `trainprobe merge` reads them."""
    from trainprobe.job import merged_job

    return merged_job([JOBS_DIR / name])
