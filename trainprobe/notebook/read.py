"""Read a notebook's code cells, and plan how each runs: Python, IPython, or skipped lines.

A ``.ipynb`` file is JSON (nbformat 4: ``cells``, each with ``cell_type`` and ``source`` as a
string or a list of strings). It is read here without nbformat, which need not be installed.

Lines that would change the machine (``!pip install``, ``%conda install``, ``!apt-get install``,
``!sudo ...``) are not run: each becomes ``pass`` (``:`` in a shell cell) so the cell's other
lines keep their numbers, and the plan lists them for the run's notes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

__all__ = ["NotebookError", "Cell", "SkippedLine", "NotebookPlan", "read_cells", "plan_notebook",
           "ipython_syntax", "skipped_note"]


class NotebookError(ValueError):
    """The file cannot be read as a notebook; the message says why, in one sentence."""


@dataclass(frozen=True)
class Cell:
    number: int  # position among the code cells, from 1
    source: str


@dataclass(frozen=True)
class SkippedLine:
    cell: int
    line: int
    text: str

    def where(self) -> str:
        return f"cell {self.cell}, line {self.line}"


@dataclass(frozen=True)
class NotebookPlan:
    path: str
    cells: tuple[Cell, ...]  # the code to run, skipped lines already replaced
    skipped: tuple[SkippedLine, ...] = ()
    ipython: Optional[SkippedLine] = None  # the first line that needs IPython (magic, !shell, ?), if any
    language: str = "python"

    @property
    def needs_ipython(self) -> bool:
        return self.ipython is not None


_INSTALLERS = (r"(?:(?:python3?|py)\s+-m\s+)?(?:pip3?|uv\s+pip|conda|mamba|micromamba|apt-get|apt|yum|dnf|brew"
               r"|npm|yarn)\s+(?:\S+\s+)*?(?:install|uninstall|remove|update|upgrade|add)\b")
_MACHINE_LINE = re.compile(r"^(?:!|%)\s*(?:sudo\b.*|" + _INSTALLERS + r".*)$")
_SHELL_MACHINE_LINE = re.compile(r"^(?:sudo\b.*|" + _INSTALLERS + r".*)$")
_SHELL_CELLS = re.compile(r"^%%(?:bash|sh|shell|system|script\s+(?:ba)?sh)\b")
# Lines only IPython runs: a magic, a shell escape, x = !cmd, x = %magic, help with ? (obj? / ?obj).
_IPYTHON_LINE = re.compile(r"^\s*(?:[%!]|\?\S)|^\s*[\w.]+\s*=\s*[%!]|^\s*[\w.]+\?{1,2}\s*$")


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(str(part) for part in source)
    return source if isinstance(source, str) else ""


def read_cells(path: str | Path) -> tuple[tuple[Cell, ...], str]:
    """The code cells in order, and the notebook's language (``python`` when unsaid)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise NotebookError(f"notebook not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NotebookError(f"cannot read {path}: {exc}") from None
    except ValueError as exc:
        raise NotebookError(f"{path} is not a notebook (not JSON: {exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError(f"{path} is not a Jupyter notebook (no list of cells; nbformat 4 is read)")
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    language = str((metadata.get("kernelspec") or {}).get("language")
                   or (metadata.get("language_info") or {}).get("name") or "python").lower()
    code = [c for c in data["cells"] if isinstance(c, dict) and c.get("cell_type") == "code"]
    return tuple(Cell(i, _source(c)) for i, c in enumerate(code, 1)), language


def _plan_cell(cell: Cell) -> tuple[Cell, list[SkippedLine], Optional[SkippedLine]]:
    lines = cell.source.split("\n")
    skipped: list[SkippedLine] = []
    first_ipython: Optional[SkippedLine] = None
    shell_cell = bool(lines) and bool(_SHELL_CELLS.match(lines[0].strip()))
    for i, line in enumerate(lines):
        stripped = line.strip()
        if first_ipython is None and ((i == 0 and stripped.startswith("%%")) or _IPYTHON_LINE.match(line)):
            first_ipython = SkippedLine(cell.number, i + 1, stripped)
        if shell_cell and i > 0:
            if _SHELL_MACHINE_LINE.match(stripped):
                skipped.append(SkippedLine(cell.number, i + 1, stripped))
                lines[i] = line[: len(line) - len(line.lstrip())] + ":"
        elif _MACHINE_LINE.match(stripped):
            skipped.append(SkippedLine(cell.number, i + 1, stripped))
            lines[i] = line[: len(line) - len(line.lstrip())] + "pass"
    source = "\n".join(lines)
    if first_ipython is not None and _is_python(source):
        first_ipython = None  # a % or ! that is Python after all (in a string, an operator)
    return Cell(cell.number, source), skipped, first_ipython


def _is_python(source: str) -> bool:
    try:
        compile(source, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def plan_notebook(path: str | Path) -> NotebookPlan:
    """What a run of the notebook executes: its code cells in order, lines that would change the
    machine replaced (and listed), and whether any cell needs IPython."""
    cells, language = read_cells(path)
    planned, skipped, first = [], [], None
    for cell in cells:
        new, lines, ipython = _plan_cell(cell)
        planned.append(new)
        skipped.extend(lines)
        first = first or ipython
    return NotebookPlan(str(path), tuple(planned), tuple(skipped), first, language)


def ipython_syntax(plan: NotebookPlan) -> Optional[str]:
    """Where the notebook first uses IPython's syntax (``cell 2, line 1: %matplotlib inline``)."""
    line = plan.ipython
    return f"{line.where()}: {line.text}" if line else None


def skipped_note(plan: NotebookPlan) -> Optional[str]:
    """The run's note on the lines it did not run."""
    if not plan.skipped:
        return None
    lines = "; ".join(f"{s.where()}: {s.text}" for s in plan.skipped)
    n = len(plan.skipped)
    return (f"trainprobe did not run {n} line{'s' if n > 1 else ''} of the notebook that would change the machine "
            f"(install or remove software): {lines}. Install what they install before diagnosing.")


def as_python(source: str) -> str:
    """A cell's code as plain Python for reading (``ast``), line for line: a timing magic keeps its
    statement (``%time net.fit(X, y)``), other magics and shell lines become blank."""
    return "\n".join(_python_line(line) for line in source.split("\n"))


_TIMING_MAGICS = ("time", "timeit", "prun", "capture")


def _python_line(line: str) -> str:
    text = line.lstrip()
    if text.startswith("!") or text.startswith("%%"):
        return ""
    if text.startswith("%"):
        magic, _, rest = text.partition(" ")
        return line[: len(line) - len(text)] + rest if magic.lstrip("%") in _TIMING_MAGICS else ""
    return line


def cell_python(filename: str) -> Optional[str]:
    """The code of the cell a ``<notebook>#cell-N`` file name stands for, as plain Python (as_python);
    None for any other file name, or a notebook that cannot be read."""
    from .cells import parse_cell_filename

    parsed = parse_cell_filename(filename)
    if parsed is None or not parsed[1].isdigit():
        return None
    try:
        cells = read_cells(parsed[0])[0]
    except NotebookError:
        return None
    number = int(parsed[1])
    return as_python(cells[number - 1].source) if 0 < number <= len(cells) else None

