"""Small pieces the commands share: printing to the right stream, exit codes."""

from __future__ import annotations

import sys
from typing import Optional

import click

__all__ = ["say", "exit_code_for", "open_in_browser", "result_command"]

# trainprobe's own exit status says how the script ended.
_EXIT = {"completed": 0, "stopped": 0, "interrupted": 130, "timeout": 124, "not_started": 2, "running": 1}


def say(message: str, err: bool = True) -> None:
    click.echo(message, err=err)


def exit_code_for(status: str, script_exit: Optional[int]) -> int:
    if status in _EXIT:
        return _EXIT[status]
    if status == "killed":
        return 128 + abs(script_exit or 9) if script_exit and script_exit < 0 else 137
    if status == "failed":
        return script_exit if script_exit and script_exit > 0 else 1
    return 1


def open_in_browser(path) -> None:
    import webbrowser

    try:
        webbrowser.open(path.resolve().as_uri())
    except Exception as exc:
        say(f"trainprobe: could not open a browser ({exc}); open {path} yourself")


def stderr_is_tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def result_command(produce, as_json: bool, open_report: bool) -> int:
    """The end of a command that reads files into one diagnosis (trace, merge): exit 2 when its input
    cannot be used, 1 when the report could not be written, 0 otherwise."""
    from ..api import TrainprobeError
    from .diagnose import print_outcome

    try:
        result = produce()
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return 2
    print_outcome(result, as_json, quiet=False)
    if open_report and result.report_path:
        open_in_browser(result.report_path)
    return 0 if result.report_path else 1
