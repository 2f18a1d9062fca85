"""``trainprobe check`` and ``trainprobe check-summary``: parse, call readiness, print, return a code."""

from __future__ import annotations

import os
import sys
from typing import Optional

import click

__all__ = ["COMMANDS", "check", "check_summary", "BAD_INPUT"]

# 0, 1 and 2 say how ready the machine is; input check cannot use (a bad --expect file, a missing
# --data folder, an unknown option) gets a code of its own, so a set-up script never reads it as
# "not ready".
BAD_INPUT = 3


class _InputError(click.UsageError):
    exit_code = BAD_INPUT


class _CheckCommand(click.Command):
    """click's own option errors (a --data folder that does not exist) exit with BAD_INPUT too."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as exc:
            exc.exit_code = BAD_INPUT
            raise


def _write(path: str, text: str, what: str) -> None:
    try:
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise _InputError(f"cannot write the {what} to {path}: {exc.strerror or exc}") from None


@click.command("check", cls=_CheckCommand)
@click.option("--quick", is_flag=True, help="Seconds, no benchmarks: versions, GPU, cores, memory, disks.")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False),
              help="Dataset folder: its disk type, free space and (full check) read throughput.")
@click.option("--expect", "expect_file", type=click.Path(dir_okay=False),
              help="The course's requirements (TOML); they override thresholds and become required.")
@click.option("--name", default=None, help="Your name for the class table (default: your user name).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of the checklist.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False),
              help="Also save the result as JSON (for `trainprobe check-summary`).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Also write an HTML page.")
def check(quick: bool, data_dir: Optional[str], expect_file: Optional[str], name: Optional[str],
          as_json: bool, save_path: Optional[str], html_path: Optional[str]) -> int:
    """Is this machine ready for the course? Exit code 0 ready, 1 warnings, 2 not ready,
    3 for input it cannot use (a bad --expect file, a missing --data folder)."""
    from ..readiness import ExpectError, load_expectations, render_html, render_text, run_check
    from ..readiness.progress import Progress
    from ..display import use_color

    expectations = None
    if expect_file:
        try:
            expectations = load_expectations(expect_file)
        except ExpectError as exc:
            raise _InputError(str(exc)) from None
    progress = Progress(enabled=True, plain_lines=not quick)
    result = run_check(quick=quick, data_dir=data_dir, expectations=expectations, name=name,
                       progress=progress)
    if save_path:
        _write(save_path, result.to_json(indent=2) + "\n", "result")
    if html_path:
        _write(html_path, render_html(result), "HTML page")
    if as_json:
        click.echo(result.to_json(indent=2))
    else:
        click.echo(render_text(result, color=use_color(sys.stdout)), nl=False)
        for path, what in ((save_path, "result"), (html_path, "page")):
            if path:
                click.echo(f"Saved the {what} to {path}")
    return result.exit_code


@click.command("check-summary")
@click.argument("results", nargs=-1, required=True)
@click.option("-o", "--output", "output", default="class.html", show_default=True,
              type=click.Path(dir_okay=False), help="The HTML page to write.")
def check_summary(results: tuple[str, ...], output: str) -> int:
    """One page for the whole class from saved `trainprobe check --save` files.

    Exit code 0 when every file was read, 1 when some could not be (they are listed),
    2 when none could.
    """
    from ..readiness import load_results, render_summary_html, render_summary_text, summarize

    loaded, problems = load_results(list(results))
    for p in problems:
        click.echo(f"trainprobe check-summary: could not read {p.path}: {p.error}", err=True)
    if not loaded:
        click.echo("trainprobe check-summary: no readable check results; nothing written", err=True)
        return 2
    summary = summarize(loaded, problems)
    _write(output, render_summary_html(summary), "class summary")
    click.echo(render_summary_text(summary), nl=False)
    click.echo(f"Wrote {output} ({len(loaded)} machine(s))")
    return 1 if problems else 0


COMMANDS = [check, check_summary]
