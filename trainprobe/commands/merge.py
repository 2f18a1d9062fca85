"""``trainprobe merge DIR...`` joins the nodes' folders of one job; and ``diagnose``'s job path
(``--nproc-per-node N`` or ``-- torchrun ...``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import click

from ..api import TrainprobeError
from ..exits import BAD_INPUT, of_run
from ._common import open_in_browser, print_outcome, progress_printer, result_command, say

__all__ = ["COMMANDS", "merge", "diagnose_job_command"]


def diagnose_job_command(args: Sequence[str], nproc_per_node: Optional[str], module: Optional[str], *, out,
                         as_json: bool, quiet: bool, open_report: bool, timeout, rule_dirs, plan) -> int:
    """``trainprobe diagnose --nproc-per-node N [torchrun options] SCRIPT ARGS`` or ``-- torchrun ...``."""
    from ..api import diagnose_job, job_command

    try:
        torchrun_args, target = job_command(args, nproc_per_node, module)
        result = diagnose_job(torchrun_args, target, out_dir=out, plan=plan, timeout=timeout,
                              rule_dirs=rule_dirs, progress=progress_printer(quiet))
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return BAD_INPUT
    print_outcome(result, as_json, quiet)
    if open_report and result.report_path and not result.interrupted:
        open_in_browser(result.report_path)
    return of_run(result)


@click.command()
@click.argument("folders", metavar="DIR...", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), help="Folder for the job's run.json and report (default: DIR/../merged).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary as the last line of stdout.")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="An extra folder of rule files (repeatable).")
@click.option("--open", "open_report", is_flag=True, help="Open the report in the browser when done.")
def merge(folders, out, as_json: bool, rule_dirs, open_report: bool) -> int:
    """Join the folders that each node's `trainprobe diagnose --nproc-per-node` wrote for one job
    (each holds its ranks' rank<N>/) into one job record and report."""
    from ..api import merge as merge_folders

    return result_command(lambda: merge_folders(folders, out, rule_dirs), as_json, open_report)


COMMANDS = [merge]
