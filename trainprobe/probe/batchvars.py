"""The script's variables that hold its batch size, and the lines that set them.

A beginner's loop often keeps its batch size in a plain variable: ``batch_size = 32`` and then
``X[i:i + batch_size]`` slicing an in-memory tensor, or ``DataLoader(train_set, batch_size=batch_size)``.
Neither a DataLoader's own line (there may be none), a flag nor a configuration key is then the knob: the
assignment is (test set 25's batch-norm MLP: its expert's first fix was that line). At the first optimizer
step, the script's frames on the stack hold the variable; its line is the last assignment of that value as a
literal, in the frame's file (a local: before the frame's line) or, for a notebook's global, in its cell or
an earlier one. Runs once per run, never raises.
"""

from __future__ import annotations

import re
from typing import Any

from ..notebook.cells import cells_back
from ..record import BatchVariable
from .sites import UserCode, frame_locals
from .sourcelines import call_passes_name, literal_assigned

__all__ = ["batch_variables", "BATCH_NAME"]

# What scripts call their training batch size: batch_size, BATCH_SIZE, bs, bsz, batch_sz, batchsize,
# mini_batch_size, train_batch_size, mb_size; never an evaluation's (eval_batch_size, val_bs, test_batch_size).
BATCH_NAME = re.compile(r"^(?:train_?)?(?:mini_?)?(?:batch_?size|batch_?sz|bsz|bs|mb_?size|batch)(?:_?train)?$",
                        re.IGNORECASE)
_MAX_BATCH = 1 << 20  # a larger integer is not a batch size
_MAX_FOUND = 8


def _candidates(scope: dict) -> list[tuple[str, int]]:
    return [(name, value) for name, value in list(scope.items())
            if type(value) is int and 0 < value <= _MAX_BATCH and BATCH_NAME.match(name)]


def _assignment(frame: Any, name: str, value: int, local: bool) -> str:
    """"file:line" of the literal assignment, or "" when the script computed the value or read it elsewhere."""
    path = frame.f_code.co_filename
    if local:
        line = literal_assigned(path, name, value, up_to=frame.f_lineno)
        return f"{path}:{line}" if line is not None else ""
    for cell in cells_back(path):  # a module's global: anywhere in its file, or in an earlier notebook cell
        line = literal_assigned(cell, name, value)
        if line is not None:
            return f"{cell}:{line}"
    return ""


def batch_variables(frame: Any, is_user: UserCode, loader_sites: tuple[str, ...] = ()) -> tuple[BatchVariable, ...]:
    """The batch-size variables of the script's frames from ``frame`` outward (locals first, then each module's
    globals once), each with the line that assigns its value as a literal; ``loader_sites`` are the "file:line"s
    of the DataLoader(...) calls the script made, to tell which variable one of them was passed."""
    found: dict[tuple[str, str], BatchVariable] = {}
    seen_globals: set[int] = set()
    try:
        while frame is not None and len(found) < _MAX_FOUND:
            if is_user(frame.f_code.co_filename):
                scopes = []
                if frame.f_code.co_name != "<module>":
                    scopes.append((frame_locals(frame), True))
                if id(frame.f_globals) not in seen_globals:
                    seen_globals.add(id(frame.f_globals))
                    scopes.append((frame.f_globals, False))
                for scope, local in scopes:
                    for name, value in _candidates(scope):
                        at = _assignment(frame, name, value, local)
                        if at and (name, at) not in found:
                            passed = any(call_passes_name(*_split(s), name) for s in loader_sites if ":" in s)
                            found[(name, at)] = BatchVariable(name=name, value=value, at=at, passed_to_loader=passed)
            frame = frame.f_back
    except Exception:  # pylint: disable=broad-except  # a frame or file we cannot read: fewer variables, never a failed step
        pass
    return tuple(found.values())[:_MAX_FOUND]


def _split(site: str) -> tuple[str, int]:
    path, line = site.rsplit(":", 1)
    return path, int(line)
