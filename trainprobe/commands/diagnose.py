"""``trainprobe diagnose [OPTIONS] SCRIPT [ARGS]...``"""

from __future__ import annotations

from pathlib import Path

import click

from ..api import DEFAULT_VERIFY_BUDGET, TrainprobeError, diagnose as run_diagnose, is_job_command
from ..exits import BAD_INPUT, of_run
from ..probe.config import WindowPlan
from ..vocabulary import DEFAULT_MAX_SECONDS, DEFAULT_WARMUP_STEPS, DEFAULT_WINDOW_SECONDS
from ._common import open_in_browser, print_outcome, progress_printer, say
from .merge import diagnose_job_command

__all__ = ["COMMANDS", "diagnose"]


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-m", "module", metavar="MODULE", help="Run a library module as a script, as `python -m` does.")
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), help="Folder for run.json, the report and the trace (default: a new folder under ./trainprobe-runs).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary as the last line of stdout.")
@click.option("--open", "open_report", is_flag=True, help="Open the report in the browser when done.")
@click.option("--trace", type=click.Path(path_type=Path), help="Export the profiler window as a Chrome/Perfetto trace to this file.")
@click.option("--timeout", type=float, metavar="SECONDS", help="End the script if it is still running after this long (a hang).")
@click.option("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS, show_default=True, metavar="SECONDS", help="Stop the script cleanly at the first step after this long.")
@click.option("--warmup-steps", type=click.IntRange(0), default=DEFAULT_WARMUP_STEPS, show_default=True, help="Steps to skip before measuring (compilation, autotune, first allocations).")
@click.option("--steps", type=click.IntRange(1), help="Measure exactly this many steady steps (default: a window of --window seconds).")
@click.option("--window", type=float, default=DEFAULT_WINDOW_SECONDS, show_default=True, metavar="SECONDS", help="Length of the measured window of steady steps.")
@click.option("--full", is_flag=True, help="Let the script run to its end (no early stop).")
@click.option("--no-profile", is_flag=True, help="Skip the torch.profiler and cProfile windows.")
@click.option("--rules", "rule_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="An extra folder of rule files (repeatable).")
@click.option("--data", "data_paths", multiple=True, type=click.Path(exists=True), help="Where the training data lives (for the storage checks).")
@click.option("--verify", is_flag=True, help="Measure each injectable fix on this script (the what-if).")
@click.option("--verify-budget", type=float, default=DEFAULT_VERIFY_BUDGET, show_default=True, metavar="SECONDS", help="Time budget for --verify.")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
@click.option("--keep-args", is_flag=True, help="Save the script's arguments as given: by default, values of secret-looking ones (--api-key, --token, --password, NAME_SECRET=...) are saved as <redacted>.")
@click.option("--nproc-per-node", "--nproc_per_node", "nproc_per_node", metavar="N", help="Launch the script through torchrun with N ranks per node and probe every rank; torchrun's other options (--nnodes, --rdzv-*, ...) go before SCRIPT.")
@click.argument("target", nargs=-1, type=click.UNPROCESSED)
def diagnose(module, out, as_json, open_report, trace, timeout, max_seconds, warmup_steps, steps, window, full,
             no_profile, rule_dirs, data_paths, verify, verify_budget, quiet, target, keep_args=False,
             nproc_per_node=None) -> int:
    """Run SCRIPT with ARGS under the probe and say what holds training back.

    \b
    Examples:
      trainprobe diagnose train.py -- --epochs 3 --lr 0.1
      trainprobe diagnose -m mypkg.train --config small.yaml
      trainprobe diagnose course.ipynb          (a notebook's code cells, in order)
    """
    args = list(target)
    if args and args[0] == "--":
        args = args[1:]
    plan = WindowPlan.from_options(warmup_steps=warmup_steps, steps=steps, window=window, max_seconds=max_seconds,
                                   full=full, profile=not no_profile)
    if nproc_per_node or is_job_command(args):  # a whole job (trainprobe/job/)
        return diagnose_job_command(args, nproc_per_node, module, out=out, as_json=as_json, quiet=quiet,
                                    open_report=open_report, timeout=timeout, rule_dirs=rule_dirs, plan=plan)
    if module:
        argv = ["-m", module, *args]
    else:
        if args[1:2] == ["--"]:  # trainprobe diagnose train.py -- --epochs 3
            del args[1]
        argv = args
    try:
        result = run_diagnose(
            argv, out_dir=out, plan=plan, timeout=timeout, trace_path=trace, rule_dirs=rule_dirs,
            data_paths=data_paths, progress=progress_printer(quiet), keep_args=keep_args,
            verify_budget=verify_budget if verify else None,
        )
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return BAD_INPUT
    print_outcome(result, as_json, quiet)
    if open_report and result.report_path:
        open_in_browser(result.report_path)
    return of_run(result)


COMMANDS = [diagnose]
