"""The ``trainprobe`` command: parse, call the API, return an exit code.

Each command lives in its own module under ``trainprobe.commands`` and
exposes ``COMMANDS``; this module only gathers them.
"""

from __future__ import annotations

import importlib
import sys
from typing import Optional, Sequence

import click

from .version import __version__

__all__ = ["cli", "main"]

_COMMAND_MODULES = ("diagnose", "trace", "merge", "report", "rules", "check", "verify", "compare")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trainprobe")
def cli() -> None:
    """Find what holds a PyTorch training run back, and how to fix it."""


for _name in _COMMAND_MODULES:
    try:
        _module = importlib.import_module(f"trainprobe.commands.{_name}")
    except ModuleNotFoundError as exc:  # a command not built yet must not break the others
        if exc.name != f"trainprobe.commands.{_name}":
            raise
        continue
    for _command in getattr(_module, "COMMANDS", ()):
        cli.add_command(_command)


def _tolerant_streams() -> None:
    """Output degrades instead of crashing on a terminal or pipe that cannot encode ·, × or →
    (PYTHONIOENCODING=ascii, a C locale): such characters become '?'."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass  # not a text stream we can reconfigure (a test's capture, a notebook's)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the CLI and return its exit status instead of exiting."""
    _tolerant_streams()
    try:
        result = cli.main(args=list(argv) if argv is not None else None,
                          prog_name="trainprobe", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 130
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
