"""The runs a comparison reads: each RUN a run folder or a run.json, loaded, checked and diagnosed.

Records are read by ``record_file.read_record`` (the same refusals as
``trainprobe report``: not a record, a damaged one, a newer schema) and
diagnosed by the function the caller gives (``api.compare`` gives
``api.analyze``, so a compared run's verdict and findings are the ones its own
report shows). Records of two schema versions that this version reads are
compared, and the comparison flags it; one newer than this version reads is
refused, naming both versions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..findings import Diagnosis, WhatIf
from ..record import RunRecord
from ..record_file import RecordFileError, read_record

__all__ = ["CompareError", "LoadedRun", "resolve", "load_runs", "saved_whatif"]


class CompareError(Exception):
    """Runs that cannot be compared, said in one sentence (the api says it as its own error)."""


@dataclass(frozen=True)
class LoadedRun:
    label: str  # how tables name the run: its folder, or its file without .run.json
    path: Path  # the run.json read
    record: RunRecord
    diagnosis: Diagnosis
    whatif: Optional[WhatIf] = None  # a what-if saved beside the record (diagnosis.json), for its losses


def resolve(run: str | os.PathLike) -> Path:
    """The run.json a RUN argument names: a run folder's run.json, or the file itself."""
    path = Path(run)
    if path.is_dir():
        inside = path / "run.json"
        if not inside.is_file():
            raise CompareError(f"{path} is a folder without a run.json; give a run folder or a run.json")
        return inside
    if not path.exists():
        raise CompareError(f"run not found: {path}")
    return path


def _label(path: Path) -> str:
    if path.name == "run.json":
        return path.resolve().parent.name or str(path)
    name = path.name
    for suffix in (".run.json", ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _unique(labels: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def saved_whatif(record_path: Path) -> Optional[WhatIf]:
    """The what-if saved by an earlier diagnosis of this record (diagnosis.json beside it), if any."""
    path = record_path.with_name("diagnosis.json")
    if record_path.name != "run.json" or not path.is_file():
        return None
    try:
        return Diagnosis.load(path).whatif
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # an unreadable old diagnosis: compared without its losses


def load_runs(runs: Sequence[str | os.PathLike], diagnose: Callable[[RunRecord], Diagnosis]) -> tuple[LoadedRun, ...]:
    """Every RUN loaded and diagnosed by ``diagnose``, in the order given (the first is the baseline).
    Raises CompareError with one sentence for what cannot be compared."""
    if len(runs) < 2:
        raise CompareError("give at least two runs to compare: the baseline first, then the candidates")
    paths = [resolve(r) for r in runs]
    loaded = []
    for label, path in zip(_unique([_label(p) for p in paths]), paths):
        try:
            record = read_record(path)
        except RecordFileError as exc:
            raise CompareError(str(exc)) from None
        loaded.append(LoadedRun(label=label, path=path, record=record, diagnosis=diagnose(record),
                                whatif=saved_whatif(path)))
    return tuple(loaded)
