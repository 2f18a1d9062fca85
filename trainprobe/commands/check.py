"""``trainprobe check`` and ``trainprobe check-summary``: parse, call the api, print, return a code."""

from __future__ import annotations

import sys
from typing import Optional

import click

from ..exits import BAD_INPUT, of_check, of_class_page

__all__ = ["COMMANDS", "check", "check_summary"]


@click.command("check")
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
    """Is this machine ready for the course? Exit status 0 ready, 1 ready with warnings (or a
    --save/--html file that could not be written), 3 not ready, 2 for input it cannot use (a bad
    --expect file, a missing --data folder)."""
    from ..api import TrainprobeError, check as check_machine
    from ..display import use_color
    from ..readiness import render_text
    from ..readiness.progress import Progress

    try:
        run = check_machine(quick=quick, data_dir=data_dir, expect_file=expect_file, name=name,
                            save_path=save_path, html_path=html_path,
                            progress=Progress(enabled=True, plain_lines=not quick))
    except TrainprobeError as exc:
        click.echo(f"trainprobe check: {exc}", err=True)
        return BAD_INPUT
    if as_json:
        click.echo(run.result.to_json(indent=2))
    else:
        click.echo(render_text(run.result, color=use_color(sys.stdout)), nl=False)
        for path, what in ((run.saved, "result"), (run.page, "page")):
            if path:
                click.echo(f"Saved the {what} to {path}")
    for problem in run.problems:
        click.echo(f"trainprobe check: {problem}", err=True)
    return of_check(run)


@click.command("check-summary")
@click.argument("results", nargs=-1, required=True)
@click.option("-o", "--output", "output", default="class.html", show_default=True,
              type=click.Path(dir_okay=False), help="The HTML page to write.")
def check_summary(results: tuple[str, ...], output: str) -> int:
    """One page for the whole class from saved `trainprobe check --save` files.

    Exit status 0 when every file was read, 1 when some could not be (they are listed) or the page
    could not be written, 2 when none could.
    """
    from ..api import check_summary as class_page
    from ..readiness import render_summary_text

    made = class_page(results, output)
    for p in made.summary.problems:
        click.echo(f"trainprobe check-summary: could not read {p.path}: {p.error}", err=True)
    if not made.summary.rows:
        click.echo("trainprobe check-summary: no readable check results; nothing written", err=True)
        return of_class_page(made)
    click.echo(render_summary_text(made.summary), nl=False)
    if made.page:
        click.echo(f"Wrote {made.page} ({len(made.summary.rows)} machine(s))")
    for problem in made.problems:
        click.echo(f"trainprobe check-summary: {problem}", err=True)
    return of_class_page(made)


COMMANDS = [check, check_summary]
