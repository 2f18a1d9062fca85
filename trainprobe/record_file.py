"""Saved records, read back with checks and written by one writer, for every stage that reads or saves
one (the probe, report, verify, compare, jobs).

``RunRecord.load`` trusts its file; :func:`read_record` and :func:`read_job` do not: a file that is
not a record, a damaged one, or one of a newer schema than this version reads is refused in one
sentence that says what is wrong (and which field, for a damaged record). The api turns the refusal
into its own error; the stages below it need not import the api to give the same sentence.

:func:`write_record` is the one writer of a run or job record: atomic (a reader never sees half a
file) and never raising for a full disk or a read-only folder, so that what was measured stays in
memory for the report and the caller says what could not be written.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional

from .jsonio import JsonMixin, open_json, write_problem
from .record import SCHEMA_VERSION, RunRecord
from .record_job import JOB_SCHEMA_VERSION, JobRecord

__all__ = ["RecordFileError", "read_record", "read_job", "write_record"]


class RecordFileError(ValueError):
    """A file that cannot be read as a run record, said in one sentence."""


def _read(path: str | os.PathLike, what: str, oldest: int, newest: int, schema: str) -> dict[str, Any]:
    """The JSON object of a saved record of schema ``oldest``..``newest``, or RecordFileError saying why not."""
    try:
        with open_json(path) as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise RecordFileError(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise RecordFileError(f"{path} is a folder; give its run.json") from None
    except (OSError, UnicodeDecodeError, EOFError) as exc:  # EOFError: a cut-off .gz
        raise RecordFileError(f"cannot read {path}: {exc}") from None
    except ValueError as exc:
        raise RecordFileError(f"{path} is not a trainprobe {what} (not JSON: {exc})") from None
    if not isinstance(data, dict) or "schema_version" not in data:
        shape = "an object without schema_version" if isinstance(data, dict) else f"a JSON {type(data).__name__}"
        raise RecordFileError(f"{path} is not a trainprobe {what} ({shape})")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < oldest:
        raise RecordFileError(f"{path} is not a trainprobe {what} (schema_version {version!r})")
    if version > newest:
        raise RecordFileError(f"{path} was written by a newer trainprobe ({schema} schema {version}; this version "
                              f"reads schema {newest}): upgrade trainprobe to read it")
    return data


def read_record(path: str | os.PathLike) -> RunRecord:
    """The run record saved at ``path``, or RecordFileError saying why it cannot be read."""
    data = _read(path, "run record", 1, SCHEMA_VERSION, "record")
    try:
        return RunRecord.from_dict(data)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise RecordFileError(f"{path} is a damaged run record: {exc}") from None


def read_job(path: str | os.PathLike) -> JobRecord:
    """The job record saved at ``path`` (``job.json``), or RecordFileError saying why it cannot be read.
    Jobs of schema 1 and 2 were run records (run.json): see job/build.saved_job."""
    data = _read(path, "job record", JOB_SCHEMA_VERSION, JOB_SCHEMA_VERSION, "job")
    try:
        return JobRecord.from_dict(data)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise RecordFileError(f"{path} is a damaged job record: {exc}") from None


def write_record(record: JsonMixin, path: str | os.PathLike) -> Optional[str]:
    """Save a run or job record at ``path``, atomically. None when it was written; else what went wrong,
    in one sentence (the file at ``path`` is left as it was)."""
    try:
        record.save(path)
    except OSError as exc:
        return write_problem(path, exc)
    return None
