"""The IPython extension: ``%load_ext trainprobe``, then ``%%trainprobe [OPTIONS]`` on a training cell.

The cell's code runs in the kernel's namespace, as it would without the magic, under the probe
(:mod:`.live`). Its lines keep their numbers (line 1 is the ``%%trainprobe`` line), so tracebacks
and findings say "cell In[7], line 5" as IPython does. When trainprobe has measured enough it
stops the cell at a step boundary; the verdict shows in the cell's output, with a link to the
report. An error of the cell's own is raised again after the report is written, as without the
magic. A cell whose last line is an expression shows its value, as without the magic.
"""

from __future__ import annotations

import ast
import linecache
import shlex
import sys
from pathlib import Path
from typing import Any, Optional

import click

from ..vocabulary import DEFAULT_MAX_SECONDS, DEFAULT_WARMUP_STEPS, DEFAULT_WINDOW_SECONDS

__all__ = ["load_ipython_extension", "unload_ipython_extension", "parse_options", "run_cell"]


@click.command(name="%%trainprobe", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-o", "--out", type=click.Path(path_type=Path), help="Folder for run.json and the report (default: a new folder under ./trainprobe-runs).")
@click.option("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS, show_default=True, metavar="SECONDS", help="Stop the cell cleanly at the first step after this long.")
@click.option("--warmup-steps", type=click.IntRange(0), default=DEFAULT_WARMUP_STEPS, show_default=True, help="Steps to skip before measuring.")
@click.option("--steps", type=click.IntRange(1), help="Measure exactly this many steady steps.")
@click.option("--window", type=float, default=DEFAULT_WINDOW_SECONDS, show_default=True, metavar="SECONDS", help="Length of the measured window of steady steps.")
@click.option("--full", is_flag=True, help="Let the cell run to its end (no early stop).")
@click.option("--no-profile", is_flag=True, help="Skip the torch.profiler and cProfile windows.")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="An extra folder of rule files (repeatable).")
@click.option("-q", "--quiet", is_flag=True, help="No progress line.")
def _command(**options: Any) -> dict:
    """Probe this cell's training loop and show what holds it back."""
    return options


def parse_options(line: str) -> Optional[dict]:
    """The magic's options, or None after printing why they cannot be used (or the help)."""
    try:
        args = shlex.split(line)
        with _command.make_context("%%trainprobe", args) as ctx:
            return dict(ctx.params)
    except ValueError as exc:  # shlex: an unclosed quote
        print(f"%%trainprobe: {exc}", file=sys.stderr)
    except click.exceptions.Exit:
        pass  # --help was printed
    except click.ClickException as exc:
        print(f"%%trainprobe: {exc.format_message()}", file=sys.stderr)
    return None


def _compile(shell: Any, line: str, cell: str, filename: str, number: int) -> tuple[Any, Any]:
    """The cell's body as code numbered like the cell (the magic is line 1), and its last expression."""
    whole = f"%%trainprobe {line}\n{cell}"
    linecache.cache[filename] = (len(whole), None, whole.splitlines(True), filename)
    names = getattr(shell.compile, "_filename_map", None)
    if isinstance(names, dict):
        names[filename] = number  # IPython's tracebacks then say "Cell In[N], line L"
    tree = shell.compile.ast_parse(shell.transform_cell(cell), filename=filename)
    ast.increment_lineno(tree, 1)
    tree = shell.transform_ast(tree)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = shell.compile(ast.Expression(tree.body.pop().value), filename, "eval")
    return shell.compile(tree, filename, "exec"), last


def run_cell(shell: Any, line: str, cell: str) -> Any:
    """``%%trainprobe``: run ``cell`` under the probe in ``shell``'s namespace; the cell's value."""
    from ..api import TrainprobeError
    from ..probe.config import WindowPlan
    from ..probe.stop import ProbeStop
    from .cells import cell_filename
    from .kernel import kernel_cells, notebook_path
    from .live import LiveOptions, LiveSession
    from .show import ProgressLine, show_result

    options = parse_options(line)
    if options is None:
        return None
    number = int(getattr(shell, "execution_count", 0) or 0)
    notebook = notebook_path()
    filename = cell_filename(notebook, f"In[{number}]")
    code, last = _compile(shell, line, cell, filename, number)
    plan = WindowPlan.from_options(warmup_steps=options["warmup_steps"], steps=options["steps"],
                                   window=options["window"], max_seconds=options["max_seconds"],
                                   full=options["full"], profile=not options["no_profile"])
    live = LiveOptions(out_dir=options["out"], plan=plan, rule_dirs=tuple(options["rule_dirs"]),
                       label=f"{Path(notebook).stem}-cell{number}", command_line=f"%%trainprobe {line}".strip(),
                       quiet=options["quiet"])
    progress = ProgressLine(enabled=not options["quiet"])
    try:
        session = LiveSession(live, progress.update, kernel_cells).start()
    except TrainprobeError as exc:
        print(f"trainprobe: {exc}", file=sys.stderr)
        return None
    value, error = None, None
    try:
        exec(code, shell.user_ns)  # pylint: disable=exec-used
        if last is not None:
            value = eval(last, shell.user_ns)  # pylint: disable=eval-used
    except BaseException as exc:  # pylint: disable=broad-except  # the cell's own ending, whatever it is
        error = exc
    try:
        show_result(session.stop(error))
    except TrainprobeError as exc:
        print(exc, file=sys.stderr)
    finally:
        progress.close()
    if error is not None and not isinstance(error, ProbeStop):
        raise error
    return value


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext trainprobe``: registers the ``%%trainprobe`` cell magic."""

    def trainprobe(line: str, cell: str) -> Any:
        return run_cell(ipython, line, cell)

    trainprobe.__doc__ = (_command.get_help(click.Context(_command, info_name="%%trainprobe"))
                          + "\n\nThe cell runs in the kernel; trainprobe stops it cleanly once it has measured enough.")
    ipython.register_magic_function(trainprobe, magic_kind="cell", magic_name="trainprobe")


def unload_ipython_extension(ipython: Any) -> None:
    """Nothing to undo: the magic patches nothing while no cell runs under it."""
