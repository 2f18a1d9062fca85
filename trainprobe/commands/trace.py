"""``trainprobe trace PATH...``: diagnose torch.profiler traces recorded anywhere."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import trace as trace_files
from ._common import result_command

__all__ = ["COMMANDS", "trace"]


@click.command()
@click.argument("paths", metavar="PATH...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), help="Folder for run.json, the report and the summary (default: a new folder under ./trainprobe-runs).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary as the last line of stdout.")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="An extra folder of rule files (repeatable).")
@click.option("--open", "open_report", is_flag=True, help="Open the report in the browser when done.")
def trace(paths, out, as_json: bool, rule_dirs, open_report: bool) -> int:
    """Diagnose torch.profiler trace files (.json, .json.gz, as tensorboard_trace_handler writes them),
    or folders of them: one per rank of a job, or several from one rank."""
    return result_command(lambda: trace_files(paths, out, rule_dirs), as_json, open_report)


COMMANDS = [trace]
