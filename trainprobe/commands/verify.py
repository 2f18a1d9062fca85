"""``trainprobe verify RUN_JSON``: measure the injectable fixes of a saved run on its script."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import DEFAULT_VERIFY_BUDGET, TrainprobeError, verify_record
from ..exits import BAD_INPUT, of_saved
from ._common import progress_printer, say
from .diagnose import print_outcome

__all__ = ["COMMANDS", "verify"]


@click.command()
@click.argument("record_path", metavar="RUN_JSON", type=click.Path(path_type=Path))
@click.option("--budget", type=click.FloatRange(min=1.0), default=DEFAULT_VERIFY_BUDGET, show_default=True,
              metavar="SECONDS", help="Time budget for all the trials together.")
@click.option("--rules", "rule_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="An extra folder of rule files (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary as the last line of stdout.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
def verify(record_path: Path, budget: float, rule_dirs, as_json: bool, quiet: bool) -> int:
    """Re-run the script of a saved RUN_JSON with each fix trainprobe can apply, and measure the gain.

    \b
    The script is run again as recorded (same arguments, same folder), in short
    windows that alternate the baseline and each fix; the report, summary.json
    and diagnosis.json beside RUN_JSON are rewritten, and diagnosis.json keeps
    every trial (a later `trainprobe report` shows them again).

    \b
    Exit status:
      0  the what-if ran: each fix measured (whether or not it paid), or none to measure
      1  it could not measure (the baseline trial failed), or an output could not be written
      2  RUN_JSON cannot be used: not a run record, its script is gone, its arguments were
         saved as <redacted>
      130  Ctrl-C: what was measured is kept
    """
    try:
        result = verify_record(record_path, budget, rule_dirs, progress_printer(quiet))
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return BAD_INPUT
    print_outcome(result, as_json, quiet)
    if not as_json:
        for finding in result.diagnosis.findings:
            if finding.verification is not None:
                click.echo(f"what-if {finding.id}: {finding.verification.text}")
        if result.diagnosis.whatif_combined is not None:
            click.echo(f"what-if combined: {result.diagnosis.whatif_combined.text}")
    return of_saved(result)


COMMANDS = [verify]
