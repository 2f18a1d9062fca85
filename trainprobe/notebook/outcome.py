"""What a notebook's run adds to its record: the lines it did not run, and the cell it failed in."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Optional, Sequence

from ..record import RunRecord
from .read import NotebookPlan, plan_notebook, skipped_note

__all__ = ["is_notebook", "notebook_plan", "failed_cell", "annotate_record"]

# The innermost cell frame of a traceback in cell terms (see cells.in_cell_terms).
_CELL_FRAME = re.compile(r'File "[^"]*", cell (?P<cell>\S+), line (?P<line>\d+)')


def is_notebook(target: Sequence[str]) -> bool:
    return bool(target) and target[0] != "-m" and str(target[0]).lower().endswith(".ipynb")


def notebook_plan(target: Sequence[str]) -> Optional[NotebookPlan]:
    """The notebook's plan when ``target`` is one (None for a script). Raises NotebookError when the
    file is no notebook, or when its cells need IPython and IPython is not installed."""
    if not is_notebook(target):
        return None
    from .read import NotebookError

    plan = plan_notebook(target[0])
    if plan.language not in ("python", "python3"):
        raise NotebookError(f"{target[0]} is a {plan.language} notebook; trainprobe runs Python notebooks")
    if plan.needs_ipython and not _has_ipython():
        line = plan.ipython
        raise NotebookError(f"{Path(target[0]).name} uses IPython (cell {line.cell}, line {line.line}: {line.text}), "
                            "which is not installed; install it with: pip install 'trainprobe[notebook]'")
    return plan


def _has_ipython() -> bool:
    import importlib.util

    return importlib.util.find_spec("IPython") is not None


def failed_cell(traceback: Optional[str]) -> Optional[tuple[str, int]]:
    """The cell (and its line) where the notebook's error was raised, from its traceback."""
    matches = list(_CELL_FRAME.finditer(traceback or ""))
    if not matches:
        return None
    last = matches[-1]
    return last.group("cell"), int(last.group("line"))


def annotate_record(record: RunRecord, plan: NotebookPlan) -> RunRecord:
    """The record with the notebook's skipped lines among its notes, and a failure that names its cell."""
    notes = record.notes
    note = skipped_note(plan)
    if note and note not in notes:
        notes = (note,) + notes
    outcome = record.outcome
    where = failed_cell(outcome.traceback) if outcome.status == "failed" else None
    if where is not None:
        what = f" with {outcome.exception_type}" if outcome.exception_type else ""
        reason = (f"the notebook failed in cell {where[0]}, line {where[1]}{what}; the cells after it did not "
                  "run, and what was measured before it is kept")
        outcome = dataclasses.replace(outcome, reason=reason)
        if _spawned_workers_failed(record):
            notes = notes + (_SPAWN_NOTE,)
    return dataclasses.replace(record, notes=notes, outcome=outcome)


_SPAWN_NOTE = ("DataLoader workers started with spawn (or forkserver) cannot load a Dataset, collate_fn or "
               "worker_init_fn defined in a notebook's cell: each worker is a fresh Python that does not run the "
               "notebook, so it cannot unpickle them (a Jupyter kernel fails the same way). Move them into a .py "
               "file beside the notebook and import them from there.")


def _spawned_workers_failed(record: RunRecord) -> bool:
    message = record.outcome.exception_message or ""
    spawned = any((d.start_method or "") in ("spawn", "forkserver") for d in record.settings.dataloaders)
    return spawned and "DataLoader worker" in message and "exited unexpectedly" in message
