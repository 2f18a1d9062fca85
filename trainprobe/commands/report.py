"""``trainprobe report run.json``: apply the rules again to a saved run and rewrite its report."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import report as rediagnose
from ._common import result_command

__all__ = ["COMMANDS", "report"]


@click.command()
@click.argument("record_path", metavar="RUN_JSON", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Where to write the HTML report (default: report.html beside the record).")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="An extra folder of rule files (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary on stdout.")
@click.option("--open", "open_report", is_flag=True, help="Open the report in the browser.")
def report(record_path: Path, output, rule_dirs, as_json: bool, open_report: bool) -> int:
    """Re-apply the rules to a saved RUN_JSON (no new run) and write its report. A job's job.json (or
    the run.json beside it) reports the whole job again."""
    return result_command(lambda: rediagnose(record_path, output, rule_dirs), as_json, open_report)


COMMANDS = [report]
