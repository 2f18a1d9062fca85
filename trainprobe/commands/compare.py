"""``trainprobe compare RUN...``: did the change help? The first run is the baseline."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import click

from ..api import TrainprobeError
from ..compare.fail_if_slower import EXIT_SLOWER
from ..display import use_color
from ._common import say

__all__ = ["COMMANDS", "compare"]

DEFAULT_FOLDER = Path("trainprobe-compare")


def _page_folder(out: Path) -> Path:
    if out.exists() and not out.is_dir():
        raise TrainprobeError(f"cannot use {out} as the output folder: it is a file")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TrainprobeError(f"cannot create output folder {out}: {exc.strerror or exc}") from None
    return out


@click.command()
@click.argument("runs", metavar="RUN...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), default=DEFAULT_FOLDER, show_default=True,
              help="Folder for compare.html and comparison.json (rewritten on each compare).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as one JSON line, the last line of stdout.")
@click.option("--fail-if-slower", "fail_if_slower", type=click.FloatRange(min=0), metavar="PCT",
              help=f"Exit with status {EXIT_SLOWER} when a candidate is slower than the baseline by more than PCT "
                   "percent with 95% confidence (its whole interval beyond PCT).")
def compare(runs, out: Path, as_json: bool, fail_if_slower: Optional[float]) -> int:
    """Compare runs: the first RUN is the baseline, the others candidates. A RUN is a run folder or a
    run.json (from diagnose, trace or report). Three runs or more give a class view, fastest first.

    \b
    Exit status:
      0  compared (and, with --fail-if-slower, no candidate slower beyond PCT with confidence;
         a difference that is not conclusive passes)
      1  compared, but the page could not be written
      2  bad input: a missing run, not a run record, records of different schema versions,
         a run with too few steady steps to compare
      3  --fail-if-slower: a candidate is slower than the baseline by more than PCT, with confidence

    \b
    Examples:
      trainprobe compare runs/baseline runs/workers4
      trainprobe compare base/run.json new/run.json --json --fail-if-slower 10
    """
    from ..compare import compare_runs, comparison_text, gate, json_view, load_runs, write_page

    try:
        folder = _page_folder(out)
        comparison = compare_runs(load_runs(runs))
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return 2
    verdict = gate(comparison, fail_if_slower) if fail_if_slower is not None else None
    page: Optional[Path] = folder / "compare.html"
    status = 0
    try:
        write_page(comparison, page, verdict)
        comparison.save(folder / "comparison.json", indent=2)
    except OSError as exc:
        say(f"trainprobe: the comparison page could not be written ({exc})")
        page, status = None, 1
    stream = sys.stderr if as_json else sys.stdout
    click.echo(comparison_text(comparison, verdict, page, color=use_color(stream)), file=stream)
    if as_json:
        click.echo(json.dumps(json_view(comparison, verdict, str(page) if page else None), default=str))
    if verdict is not None and verdict.failed:
        return EXIT_SLOWER
    return status


COMMANDS = [compare]
