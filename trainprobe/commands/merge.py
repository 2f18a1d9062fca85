"""``trainprobe merge DIR...`` joins the nodes' folders of one job; and ``diagnose``'s job path
(``--nproc-per-node N`` or ``-- torchrun ...``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import click

from ..api import TrainprobeError
from ._common import exit_code_for, open_in_browser, result_command, say

__all__ = ["COMMANDS", "merge", "diagnose_job_command", "is_torchrun_command"]


def is_torchrun_command(args: Sequence[str]) -> bool:
    from ..job.launch import is_torchrun_command as leading

    return bool(leading(args))


def _progress(quiet: bool):
    return (lambda line: None) if quiet else (lambda line: say(f"[trainprobe] {line}"))


def diagnose_job_command(args: Sequence[str], nproc_per_node: Optional[str], module: Optional[str], *, out,
                         as_json: bool, quiet: bool, open_report: bool, timeout, rule_dirs, plan) -> int:
    """``trainprobe diagnose --nproc-per-node N [torchrun options] SCRIPT ARGS`` or ``-- torchrun ...``."""
    from ..job import diagnose_job
    from ..job.launch import TorchrunError, is_torchrun_command as leading, split_torchrun
    from .diagnose import print_outcome

    tokens = list(args)
    tokens = tokens[leading(tokens):]
    if nproc_per_node:
        tokens = ["--nproc-per-node", str(nproc_per_node), *tokens]
    if module:  # trainprobe diagnose --nproc-per-node 2 -m pkg.train ARGS: every argument is the module's
        tokens = ["-m", module, *tokens] if not nproc_per_node else \
            ["--nproc-per-node", str(nproc_per_node), "-m", module, *tokens[2:]]
    try:
        torchrun_args, target = split_torchrun(tokens)
    except TorchrunError as exc:
        say(f"trainprobe: {exc}")
        return 2
    if target[1:2] == ("--",) and target[0] != "-m":  # trainprobe diagnose --nproc-per-node 2 train.py -- --lr 1
        target = (target[0], *target[2:])
    try:
        result = diagnose_job(torchrun_args, target, out_dir=out, plan=plan, timeout=timeout,
                              rule_dirs=rule_dirs, progress=_progress(quiet))
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return 2
    print_outcome(result, as_json, quiet)
    if open_report and result.report_path:
        open_in_browser(result.report_path)
    return exit_code_for(result.record.outcome.status, result.record.outcome.exit_code)


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
    from ..job import merge_job

    return result_command(lambda: merge_job(folders, out, rule_dirs), as_json, open_report)


COMMANDS = [merge]
