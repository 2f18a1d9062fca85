"""What a clean stop kept from running: the notebook's later cells, a script's later training.

The probe stops a script once its windows are measured. A script or notebook that trains twice
(skorch's MNIST notebook, test set 4: a small MLP, then a CNN with 85% of the training time) is then
judged by the training it measured first, and the reader must know that the rest never ran and
whether it trains. Every helper returns None when it cannot tell: the note is a courtesy, and the
run's figures stand without it.
"""

from __future__ import annotations

import ast
import os
import sys
from typing import Optional

from ..notebook.cells import parse_cell_filename
from .frames import is_trainprobe
from .sourcelines import training_after, training_call

__all__ = ["left_unrun"]


def left_unrun(exc: BaseException) -> Optional[str]:
    """'in cell 20 of 37: the 17 code cells after it did not run, and cell 32 trains again (fit(...))...'
    (or '... (none of them trains)') for a notebook; 'the script trains again after the measured loop
    (train.py:51: train(...))...' for a script; None for a stop in a notebook's last cell, a script with
    no training call after its measured loop, or when it cannot be told."""
    frames = _frames(exc)
    cell = next((parsed for parsed in (parse_cell_filename(f) for f, _ in reversed(frames))
                 if parsed is not None and parsed[1].isdigit()), None)
    if cell is not None:
        return _cells_after(cell[0], int(cell[1]))
    return _script_after(frames)


def _frames(exc: BaseException) -> list[tuple[str, int]]:
    """(file, line) of the stopped stack, outermost first."""
    out, tb = [], exc.__traceback__
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return out


def _cells_after(path: str, number: int) -> Optional[str]:
    try:
        from ..notebook.read import read_cells

        cells = read_cells(path)[0]
    except Exception:  # pylint: disable=broad-except
        return None
    later = cells[number:]
    if not later:
        return None
    head = f"in cell {number} of {len(cells)}: the {len(later)} code cell{'s' if len(later) > 1 else ''} after it did not run"
    found = [(cell.number, _first_training_call(cell.source)) for cell in later]
    training = [(index, call) for index, call in found if call]
    if training:
        index, call = training[0]
        which = f"cells {index} and {len(training) - 1} more train" if len(training) > 1 else f"cell {index} trains"
        return f"{head}, and {which} again ({call}(...)): this report is about the training measured first"
    if any(call is None for _, call in found):  # a cell that could not be read: it may train
        return f"{head}, and any training there was not measured"
    return f"{head} (none of them trains)"


def _first_training_call(source: str) -> Optional[str]:
    """The first training call in a cell's code; '' when it has none; None when it cannot be parsed."""
    from ..notebook.read import as_python

    code = as_python(source)
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    calls = sorted((node.lineno, node.col_offset, name) for node in ast.walk(tree)
                   if isinstance(node, ast.Call) and (name := training_call(node)))
    return calls[0][2] if calls else ""


def _script_after(frames: list[tuple[str, int]]) -> Optional[str]:
    """The first training call after the measured loop, in the script's own frames, innermost first."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if not isinstance(main, str):
        return None
    home = os.path.dirname(os.path.abspath(main)) + os.sep
    for path, line in reversed(frames):
        full = os.path.abspath(path)
        if not full.startswith(home) or "-packages" + os.sep in full or is_trainprobe(full):
            continue
        found = training_after(path, line)
        if found is not None:
            where = os.path.relpath(full) if not os.path.relpath(full).startswith("..") else full
            return (f"the script trains again after the measured loop ({where}:{found[0]}: {found[1]}(...)), "
                    f"which did not run: this report is about the training measured first")
    return None
