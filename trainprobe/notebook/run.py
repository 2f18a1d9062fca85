"""Run a notebook's code cells in order as one program, as a Jupyter kernel would.

Inside the probed child (``trainprobe diagnose train.ipynb``). What the cells see is what
they see in a fresh kernel after *Restart and Run All*:

* one namespace, the module ``__main__`` (``__name__ == "__main__"``), with no ``__file__``:
  like ipykernel's, so spawned DataLoader workers do not run the notebook again and cannot
  unpickle classes defined in a cell (Jupyter fails the same way; see the README);
* the working folder is the notebook's, and ``''`` (that folder) is on ``sys.path`` before
  site-packages, as IPython puts it, so ``import helpers`` finds ``helpers.py`` beside it;
* with IPython installed, each cell goes through a real ``InteractiveShell``: magics, ``!shell``
  lines and ``get_ipython()`` work; without it, cells are plain Python (the parent refuses a
  notebook whose cells need IPython before it starts, naming the install command).

Each cell is compiled as ``<notebook>#cell-N`` (see :mod:`.cells`), so tracebacks, hotspots and
findings name the cell and its line. Lines that would change the machine were replaced before
(see :mod:`.read`). The first cell that fails ends the run, as *Run All* stops there.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import linecache
import os
import sys
import types
from typing import Any, Optional

from .cells import cell_filename
from .read import Cell, plan_notebook

__all__ = ["run_notebook"]


def _register(filename: str, source: str) -> None:
    """Let tracebacks and inspect show the cell's lines (an mtime of None: linecache keeps it)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def _put_cwd_on_path(folder: str) -> None:
    """``''`` before site-packages, as IPython's kernel puts it (the folder is the working one)."""
    if sys.path and os.path.abspath(sys.path[0] or ".") in (folder, os.getcwd()):
        del sys.path[0]  # what `python -c` put there
    index = next((i for i, p in enumerate(sys.path) if os.path.basename(p) in ("site-packages", "dist-packages")), 0)
    sys.path.insert(index, "")
    # Spawned processes (DataLoader workers) get '' as the folder this process started in; a kernel
    # starts in the notebook's folder, so that is the folder they must get.
    process = sys.modules.get("multiprocessing.process")
    if process is not None:
        process.ORIGINAL_DIR = folder  # type: ignore[attr-defined]


def _plain_main() -> dict:
    module = types.ModuleType("__main__", "Automatically created module for the notebook's cells")
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    module.__spec__ = None
    module.__loader__ = None
    sys.modules["__main__"] = module
    return module.__dict__


class _Cells:
    """Which cell runs now, for the shell's compiler (cell magics compile their bodies themselves)."""

    def __init__(self) -> None:
        self.filename: Optional[str] = None
        self.body_offset = 0  # lines before a cell magic's body (the %%magic line)


def _shell(cells: _Cells) -> Any:
    """An IPython shell whose compiler names a cell magic's body after its cell."""
    from IPython.core.compilerop import CachingCompiler
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class CellCompiler(CachingCompiler):
        def __call__(self, source, filename, symbol):  # %%time compiles its body as "<timed exec>"
            if cells.filename and filename in ("<timed exec>", "<timed eval>"):
                if isinstance(source, ast.AST) and cells.body_offset:
                    ast.increment_lineno(source, cells.body_offset)
                filename = cells.filename
            return super().__call__(source, filename, symbol)

        def get_code_name(self, raw_code, transformed_code, number):  # %%capture runs its body as a cell
            return cells.filename or super().get_code_name(raw_code, transformed_code, number)

        def cache(self, transformed_code, number=0, raw_code=None):
            name = self.get_code_name(raw_code, transformed_code, number)
            if name == cells.filename:
                self._filename_map[name] = number
                return name  # linecache keeps the whole cell's lines
            return super().cache(transformed_code, number, raw_code)

        def ast_parse(self, source, filename="<unknown>", symbol="exec"):
            tree = super().ast_parse(source, filename, symbol)
            if filename == cells.filename and cells.body_offset:
                ast.increment_lineno(tree, cells.body_offset)
            return tree

    config = Config()
    config.HistoryManager.hist_file = ":memory:"  # no history database written
    config.InteractiveShell.colors = "NoColor"

    class NotebookShell(InteractiveShell):
        def enable_gui(self, gui=None):
            """%matplotlib: no window opens, as in a kernel with the inline backend (figures are drawn,
            and shown nowhere)."""

    shell = NotebookShell.instance(config=config, **_scratch_dirs())
    shell.compile = CellCompiler()  # compiler_class is not a setting
    return shell


def _scratch_dirs() -> dict:
    """An IPython folder of its own, removed at exit: a shell makes ~/.ipython/profile_default when it is
    missing, and trainprobe changes nothing on the machine. (A bare shell reads no profile's config or
    startup files anyway: the IPython application does that.)"""
    import atexit
    import shutil
    import tempfile

    from IPython.core.profiledir import ProfileDir

    folder = tempfile.mkdtemp(prefix="trainprobe-ipython-")
    atexit.register(shutil.rmtree, folder, True)
    return {"ipython_dir": folder, "profile_dir": ProfileDir.create_profile_dir(os.path.join(folder, "profile"))}


def _magic_offset(source: str) -> int:
    """Lines before a cell magic's body: the ``%%magic`` line and any blank lines above it."""
    for i, line in enumerate(source.split("\n")):
        if line.strip():
            return i + 1 if line.lstrip().startswith("%%") else 0
    return 0


def _run_cell(cell: Cell, path: str, namespace: dict, shell: Any, current: _Cells) -> None:
    filename = cell_filename(path, cell.number)
    _register(filename, cell.source)
    if not cell.source.strip():
        return
    source = cell.source
    if shell is not None:
        source = shell.transform_cell(source)
        current.filename, current.body_offset = filename, _magic_offset(cell.source)
        sys.last_value = None  # type: ignore[attr-defined]
    if shell is not None:  # IPython's compiler: a cell's __future__ imports hold for the cells after it
        code = shell.compile(source, filename, "exec")
    else:
        code = compile(source, filename, "exec", dont_inherit=True)
    try:
        # In a kernel every cell runs with get_ipython() among the builtins (the shell's builtin trap): libraries
        # that look for it by that bare name (fastcore, fastprogress) take their notebook path there, and their
        # console path without it (fastprogress's console table cannot print a miniai Learner's epoch number).
        with shell.builtin_trap if shell is not None else contextlib.nullcontext():
            exec(code, namespace)  # pylint: disable=exec-used
    finally:
        current.filename = None
    if shell is not None:
        _raise_swallowed_stop()


def _raise_swallowed_stop() -> None:
    """A cell magic that catches everything (%%time, %%capture) showed trainprobe's stop request
    instead of passing it on: end the notebook here, as the request asked."""
    from ..probe.stop import ProbeStop

    last = getattr(sys, "last_value", None)
    if isinstance(last, ProbeStop):
        raise last


def _ipython_available() -> bool:
    try:
        import IPython  # noqa: F401  # pylint: disable=unused-import,import-outside-toplevel
    except ImportError:
        return False
    return True


def run_notebook(path: str) -> None:
    """Run the notebook at ``path`` (absolute); ``sys.argv`` is already the notebook and its arguments."""
    plan = plan_notebook(path)
    folder = os.path.dirname(path)
    os.chdir(folder)
    _put_cwd_on_path(folder)
    current = _Cells()
    shell = _shell(current) if _ipython_available() else None
    if shell is None and plan.needs_ipython:
        line = plan.ipython
        raise SystemExit(f"trainprobe: {os.path.basename(path)} needs IPython to run its cell {line.cell} "
                         f"({line.text}); install it with: pip install 'trainprobe[notebook]'")
    namespace = shell.user_ns if shell is not None else _plain_main()
    for cell in plan.cells:
        _run_cell(cell, path, namespace, shell, current)
