"""Small pieces the commands share: printing to the right stream, the end of a reading command.

Exit statuses come from trainprobe/exits.py, the one policy every command follows."""

from __future__ import annotations

import sys

import click

from ..exits import BAD_INPUT, of_saved

__all__ = ["say", "open_in_browser", "result_command", "progress_printer", "print_outcome"]


def say(message: str, err: bool = True) -> None:
    click.echo(message, err=err)


def progress_printer(quiet: bool):
    """The progress lines of a command that runs the script: on stderr, or none with --quiet."""
    return (lambda line: None) if quiet else (lambda line: say(f"[trainprobe] {line}"))


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


def print_outcome(result, as_json: bool, quiet: bool) -> None:
    """The diagnosis on the terminal (stderr under --json), its problems, and the --json line last."""
    from ..api import summary_line
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


def result_command(produce, as_json: bool, open_report: bool) -> int:
    """The end of a command that reads files into one diagnosis (report, trace, merge): the api call,
    its diagnosis printed, the report opened if asked, and its status (exits.of_saved)."""
    from ..api import TrainprobeError

    try:
        result = produce()
    except TrainprobeError as exc:
        say(f"trainprobe: {exc}")
        return BAD_INPUT
    print_outcome(result, as_json, quiet=False)
    if open_report and result.report_path and not result.interrupted:
        open_in_browser(result.report_path)
    return of_saved(result)
