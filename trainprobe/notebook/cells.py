"""Names for a notebook's cells where Python expects a file name.

A cell's code is compiled with a file name of the form ``<notebook path>#cell-<label>``
(``/home/me/train.ipynb#cell-6``; ``#cell-In[7]`` for a cell run live in a kernel). The
name stays under the notebook's folder, so the hotspots count the cell as the user's code,
and it carries the cell, so every place that shows a location (a traceback, a hotspot, a
DataLoader's creation site, a finding) can say "cell 6, line 4" instead of a file's line.

Cells are numbered by their position among the notebook's code cells, from 1: the number
``In [N]`` a cell gets after *Restart Kernel and Run All*. Nothing here imports more than ``re``.
"""

from __future__ import annotations

import os
import re
from typing import Iterator, Optional

__all__ = ["cell_filename", "parse_cell_filename", "cells_back", "describe", "describe_site", "in_cell_terms"]

_MARK = "#cell-"
_NAME = re.compile(r"^(?P<notebook>.*)#cell-(?P<label>[^/\\]+)$")
# A traceback line: File "/x/train.ipynb#cell-6", line 4, in <module>
_TRACEBACK_FILE = re.compile(r'File "(?P<notebook>[^"]*)#cell-(?P<label>[^"/\\]+)", line (?P<line>\d+)')


def cell_filename(notebook: str, label: object) -> str:
    """The file name a cell's code is compiled with (``label``: its number, or ``In[7]``)."""
    return f"{notebook}{_MARK}{label}"


def parse_cell_filename(filename: str) -> Optional[tuple[str, str]]:
    """``(notebook path, label)`` for a cell's file name; None for any other file."""
    if _MARK not in (filename or ""):
        return None
    match = _NAME.match(filename)
    return (match.group("notebook"), match.group("label")) if match else None


def cells_back(filename: str) -> Iterator[str]:
    """The file names a name used in ``filename`` may have been bound in, nearest first: the file itself, then,
    for a numbered notebook cell, its notebook's earlier cells, last first (a later cell's assignment wins when
    the notebook runs top to bottom). A plain file, or a cell run live (``In[7]``), is alone."""
    yield filename
    parsed = parse_cell_filename(filename)
    if parsed is None or not parsed[1].isdigit():
        return
    for number in range(int(parsed[1]) - 1, 0, -1):  # cells count from 1
        yield cell_filename(parsed[0], number)


def describe(filename: str, line: Optional[int]) -> Optional[str]:
    """``cell 6, line 4`` for a line of a cell (``cell In[7], line 4`` live); None for a file."""
    parsed = parse_cell_filename(filename)
    if parsed is None:
        return None
    where = f"cell {parsed[1]}"
    return f"{where}, line {line}" if line else where


def describe_site(site: Optional[str]) -> Optional[str]:
    """A ``file:line`` call site, in cell terms when it is in a cell (else as given)."""
    if not site:
        return site
    path, sep, line = site.rpartition(":")
    if sep and line.isdigit():
        return describe(path, int(line)) or site
    return describe(site, None) or site


def in_cell_terms(text: str) -> str:
    """A formatted traceback with each cell's frame as ``File "train.ipynb", cell 6, line 4``."""
    if _MARK not in text:
        return text
    return _TRACEBACK_FILE.sub(
        lambda m: f'File "{os.path.basename(m.group("notebook"))}", cell {m.group("label")}, line {m.group("line")}',
        text,
    )
