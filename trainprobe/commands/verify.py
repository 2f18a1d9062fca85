"""``trainprobe verify RUN_JSON``: measure the injectable fixes of a saved run on its script."""

from __future__ import annotations

from pathlib import Path

import click

from ..api import TrainprobeError, finish, load_record, verify as run_verify
from ._common import say
from .diagnose import print_outcome

__all__ = ["COMMANDS", "verify"]


@click.command()
@click.argument("record_path", metavar="RUN_JSON", type=click.Path(path_type=Path))
@click.option("--budget", type=click.FloatRange(min=1.0), default=180.0, show_default=True, metavar="SECONDS",
              help="Time budget for all the trials together.")
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
    """
    try:
        record = load_record(record_path)
        from ..whatif import WhatIfUnavailable
        from ..whatif.verify import target_of

        try:
            target_of(record.invocation)  # a clear error before the rules and report are redone
        except WhatIfUnavailable as exc:
            raise TrainprobeError(str(exc)) from None
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return 2
    progress = (lambda line: None) if quiet else (lambda line: say(f"[trainprobe] {line}"))
    result = finish(record, record_path, rule_dirs)
    result = run_verify(result, budget=budget, progress=progress)
    print_outcome(result, as_json, quiet)
    if not as_json:
        for finding in result.diagnosis.findings:
            if finding.verification is not None:
                click.echo(f"what-if {finding.id}: {finding.verification.text}")
        if result.diagnosis.whatif_combined is not None:
            click.echo(f"what-if combined: {result.diagnosis.whatif_combined.text}")
    return 0


COMMANDS = [verify]
