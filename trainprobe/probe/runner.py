"""Run the user's script exactly as ``python`` would, and say how it ended.

This runs inside the child process. The script sees the same ``__name__``,
``sys.argv``, ``sys.path[0]``, working directory, standard streams and exit
status as under plain ``python script.py args`` (or ``python -m pkg.mod``).
The one difference is that a traceback is printed without trainprobe's own
frames, so the user reads only their code.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import io
import os
import runpy
import sys
import traceback
import types
import zipfile
from dataclasses import dataclass
from typing import Optional, Sequence

from ..notebook.cells import in_cell_terms
from .stop import ProbeStop
from .frames import inside, is_trainprobe, package_dir
from .unrun import left_unrun

__all__ = ["Target", "RunResult", "ProbeStop", "run_target", "user_traceback"]

_STDLIB_DIR = package_dir(runpy)  # where runpy.py is (a user's script may be named runpy.py too)


@dataclass(frozen=True)
class Target:
    script: Optional[str] = None  # a path, as the user typed it
    module: Optional[str] = None  # for -m
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunResult:
    status: str  # completed, stopped, failed, interrupted
    exit_code: int
    exception_type: Optional[str] = None
    exception_message: Optional[str] = None
    traceback: Optional[str] = None
    left_unrun: Optional[str] = None  # stopped: the later cells, or the later training, that never ran (unrun.py)


def _is_ours(filename: str) -> bool:
    if filename.startswith("<frozen runpy"):
        return True
    if os.path.basename(filename) == "runpy.py" and inside(filename, _STDLIB_DIR):
        return True
    return is_trainprobe(filename)


def _trim(te: traceback.TracebackException, seen: set[int]) -> None:
    if id(te) in seen:
        return
    seen.add(id(te))
    te.stack[:] = [f for f in te.stack if not _is_ours(f.filename)]
    for chained in (te.__cause__, te.__context__):
        if chained is not None:
            _trim(chained, seen)
    for sub in getattr(te, "exceptions", None) or ():
        _trim(sub, seen)


def user_traceback(exc: BaseException) -> str:
    """The traceback Python would print, without trainprobe's or runpy's frames."""
    te = traceback.TracebackException.from_exception(exc)
    _trim(te, set())
    return in_cell_terms("".join(te.format()))  # a notebook's frames: "cell 6, line 4"


def _exit_code(code: object) -> int:
    # What the interpreter does with SystemExit's argument.
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _describe(exc: BaseException) -> tuple[str, str]:
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    return name, str(exc)


def _run(target: Target) -> None:
    if target.module:
        sys.argv = [target.module, *target.args]  # run_module replaces argv[0] with the file
        sys.path[0] = os.getcwd()  # what `python -m` puts first
        runpy.run_module(target.module, run_name="__main__", alter_sys=True)
    else:
        script = target.script or ""
        full = os.path.abspath(script)  # python gives __main__ an absolute __file__ (3.9+)
        sys.path[0] = os.path.dirname(full)
        sys.argv = [script, *target.args]
        if full.endswith(".ipynb") and os.path.isfile(full):
            from ..notebook.run import run_notebook

            run_notebook(full)  # its cells in order, as a Jupyter kernel runs them
        elif os.path.isfile(full) and not zipfile.is_zipfile(full):
            _exec_as_main(full)
        else:  # a folder or zip with __main__.py: runpy knows those layouts
            runpy.run_path(script, run_name="__main__")


def _exec_as_main(path: str) -> None:
    """Execute a source file as the ``__main__`` module, the way the interpreter does.

    Not ``runpy.run_path``: it rewrites ``sys.argv[0]`` to the path it is
    given, and it must be given the absolute path for ``__file__`` to match.
    The module replaces ``sys.modules["__main__"]`` so that pickling classes
    defined in the script (DataLoader workers under spawn) finds them, and so
    that spawn re-runs the script itself in each worker.
    """
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__cached__ = None
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    module.__spec__ = None
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    with io.open_code(path) as fh:
        source = fh.read()
    code = compile(source, path, "exec", dont_inherit=True)
    exec(code, module.__dict__)


def run_target(target: Target) -> RunResult:
    """Run the script; return how it ended instead of raising."""
    try:
        _run(target)
    except ProbeStop as exc:
        return RunResult("stopped", 0, left_unrun=left_unrun(exc))
    except SystemExit as exc:
        code = _exit_code(exc.code)
        if code == 0:
            return RunResult("completed", 0)
        name, message = _describe(exc)
        return RunResult("failed", code, name, message, None)
    except KeyboardInterrupt as exc:
        text = user_traceback(exc)
        return RunResult("interrupted", 130, "KeyboardInterrupt", "", text)
    except BaseException as exc:  # the script's own error: report it as python would
        name, message = _describe(exc)
        return RunResult("failed", 1, name, message, user_traceback(exc))
    return RunResult("completed", 0)


def print_like_python(result: RunResult, stream=None) -> None:
    """Print what the interpreter prints when a script ends this way."""
    stream = stream or sys.stderr
    if result.traceback:
        stream.write(result.traceback)
        stream.flush()


def exit_like_python(result: RunResult) -> None:
    """Leave the process with the status plain ``python`` would have had."""
    sys.stdout.flush()
    sys.stderr.flush()
    if result.status == "interrupted":
        # Python re-raises SIGINT on an unhandled KeyboardInterrupt so the
        # shell sees "killed by SIGINT"; do the same.
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    sys.exit(result.exit_code)


def parse_target(argv: Sequence[str]) -> Target:
    """``["-m", "pkg.mod", *args]`` or ``["script.py", *args]``."""
    if argv and argv[0] == "-m":
        return Target(module=argv[1], args=tuple(argv[2:]))
    return Target(script=argv[0], args=tuple(argv[1:]))
