"""``trainprobe compare RUN...``: did the change help? The first run is the baseline."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import click

from ..api import DEFAULT_COMPARE_FOLDER, TrainprobeError, compare as compare_runs
from ..display import use_color
from ..exits import BAD_INPUT, FAILED_CHECK, of_comparison
from ._common import say

__all__ = ["COMMANDS", "compare"]


@click.command()
@click.argument("runs", metavar="RUN...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), default=DEFAULT_COMPARE_FOLDER, show_default=True,
              help="Folder for compare.html and comparison.json (rewritten on each compare).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as one JSON line, the last line of stdout.")
@click.option("--fail-if-slower", "fail_if_slower", type=click.FloatRange(min=0), metavar="PCT",
              help=f"Exit with status {FAILED_CHECK} when a candidate is slower than the baseline by more than PCT "
                   "percent with 95% confidence (its whole interval beyond PCT).")
def compare(runs, out: Path, as_json: bool, fail_if_slower: Optional[float]) -> int:
    """Compare runs: the first RUN is the baseline, the others candidates. A RUN is a run folder or a
    run.json (from diagnose, trace or report). Three runs or more give a class view, fastest first.

    \b
    Exit status:
      0  compared (and, with --fail-if-slower, no candidate slower beyond PCT with confidence;
         a difference that is not conclusive passes)
      1  compared, but the page could not be written
      2  bad input: a missing run, not a run record, a record of a newer schema,
         a run with too few steady steps to compare
      3  --fail-if-slower: a candidate is slower than the baseline by more than PCT, with confidence

    \b
    Examples:
      trainprobe compare runs/baseline runs/workers4
      trainprobe compare base/run.json new/run.json --json --fail-if-slower 10
    """
    from ..compare import comparison_text, json_view

    try:
        result = compare_runs(runs, out, fail_if_slower)
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return BAD_INPUT
    for problem in result.problems:
        say(f"trainprobe: {problem}")
    stream = sys.stderr if as_json else sys.stdout
    click.echo(comparison_text(result.comparison, result.gate, result.page, color=use_color(stream)), file=stream)
    if as_json:
        page = str(result.page) if result.page else None
        click.echo(json.dumps(json_view(result.comparison, result.gate, page), default=str))
    return of_comparison(result)


COMMANDS = [compare]
