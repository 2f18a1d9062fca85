"""``trainprobe report run.json``: apply the rules again to a saved run and rewrite its report."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import TrainprobeError, finish, load_record
from ._common import open_in_browser, say
from .diagnose import print_outcome

__all__ = ["COMMANDS", "report"]


@click.command()
@click.argument("record_path", metavar="RUN_JSON", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Where to write the HTML report (default: report.html beside the record).")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="An extra folder of rule files (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary on stdout.")
@click.option("--open", "open_report", is_flag=True, help="Open the report in the browser.")
def report(record_path: Path, output, rule_dirs, as_json: bool, open_report: bool) -> int:
    """Re-apply the rules to a saved RUN_JSON (no new run) and write its report."""
    try:
        record = load_record(record_path)
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return 2
    result = finish(record, record_path, rule_dirs, report_path=output)
    print_outcome(result, as_json, quiet=False)
    if result.interrupted:
        return 130  # Ctrl-C during the rules: the report is written, without a verdict
    if result.report_path is None:
        return 1  # the diagnosis was printed, but the report the command is for was not written
    if open_report:
        open_in_browser(result.report_path)
    return 0


COMMANDS = [report]
