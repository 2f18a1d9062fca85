"""``trainprobe diagnose [OPTIONS] SCRIPT [ARGS]...``"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from ..api import DEFAULT_VERIFY_BUDGET, TrainprobeError, diagnose as run_diagnose, summary_line, verify as run_verify
from ..probe.config import WindowPlan
from ._common import exit_code_for, open_in_browser, say
from .merge import diagnose_job_command, is_torchrun_command

__all__ = ["COMMANDS", "diagnose"]


def _progress(quiet: bool):
    if quiet:
        return lambda line: None
    return lambda line: say(f"[trainprobe] {line}")


def build_plan(warmup_steps: int, steps: Optional[int], window: float, max_seconds: Optional[float],
               full: bool, profile: bool) -> WindowPlan:
    return WindowPlan(
        warmup_steps=warmup_steps, steps=steps, steady_seconds=window,
        max_seconds=None if full else max_seconds, full=full, profiler=profile, cprofile=profile,
    )


def print_outcome(result, as_json: bool, quiet: bool) -> None:
    from ..display import use_color
    from ..report import terminal_summary

    stream = sys.stderr if as_json else sys.stdout
    if not quiet or not as_json:
        text = terminal_summary(result.record, result.diagnosis, result.report_path, color=use_color(stream))
        click.echo(text, file=stream)
    for problem in result.problems:
        say(f"trainprobe: {problem}")
    if as_json:
        click.echo(summary_line(result))


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-m", "module", metavar="MODULE", help="Run a library module as a script, as `python -m` does.")
@click.option("-o", "--out", "out", type=click.Path(path_type=Path), help="Folder for run.json, the report and the trace (default: a new folder under ./trainprobe-runs).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary as the last line of stdout.")
@click.option("--open", "open_report", is_flag=True, help="Open the report in the browser when done.")
@click.option("--trace", type=click.Path(path_type=Path), help="Export the profiler window as a Chrome/Perfetto trace to this file.")
@click.option("--timeout", type=float, metavar="SECONDS", help="End the script if it is still running after this long (a hang).")
@click.option("--max-seconds", type=float, default=90.0, show_default=True, metavar="SECONDS", help="Stop the script cleanly at the first step after this long.")
@click.option("--warmup-steps", type=click.IntRange(0), default=5, show_default=True, help="Steps to skip before measuring (compilation, autotune, first allocations).")
@click.option("--steps", type=click.IntRange(1), help="Measure exactly this many steady steps (default: a window of --window seconds).")
@click.option("--window", type=float, default=6.0, show_default=True, metavar="SECONDS", help="Length of the measured window of steady steps.")
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
    if nproc_per_node or is_torchrun_command(args):  # a whole job (trainprobe/job/)
        return diagnose_job_command(args, nproc_per_node, module, out=out, as_json=as_json, quiet=quiet,
                                    open_report=open_report, timeout=timeout, rule_dirs=rule_dirs,
                                    plan=build_plan(warmup_steps, steps, window, max_seconds, full, not no_profile))
    if module:
        argv = ["-m", module, *args]
    else:
        if args[1:2] == ["--"]:  # trainprobe diagnose train.py -- --epochs 3
            del args[1]
        argv = args
    plan = build_plan(warmup_steps, steps, window, max_seconds, full, not no_profile)
    try:
        result = run_diagnose(
            argv, out_dir=out, plan=plan, timeout=timeout, trace_path=trace, rule_dirs=rule_dirs,
            data_paths=data_paths, progress=_progress(quiet), keep_args=keep_args,
        )
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return 2
    if verify:
        result = _verify(result, verify_budget, quiet)
    print_outcome(result, as_json, quiet)
    if open_report and result.report_path:
        open_in_browser(result.report_path)
    if result.interrupted:
        return 130  # Ctrl-C after the script ended: its record and report are written all the same
    code = exit_code_for(result.record.outcome.status, result.record.outcome.exit_code)
    # A run that went well but whose record or report could not be saved (a full disk) is not a success.
    return code or (1 if result.outputs_lost else 0)


def _verify(result, budget: float, quiet: bool):
    return run_verify(result, budget=budget, progress=_progress(quiet))


COMMANDS = [diagnose]
