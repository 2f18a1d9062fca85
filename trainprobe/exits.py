"""trainprobe's exit statuses: one policy for every command, in one place.

======================  ===========================================================================
status                  meaning
======================  ===========================================================================
0 ``OK``                done, and all is well
1 ``PARTIAL``           done, but not all of it went well: an output could not be written (a full
                        disk), an input was skipped (``check-summary``'s unreadable files), rule files
                        with errors (``rules check``), ``check``'s warnings, a what-if that could not
                        measure (``verify``, ``diagnose --verify``)
2 ``BAD_INPUT``         nothing done: a usage error, a missing or unreadable file, not a run record,
                        an output folder that cannot be used; said in one sentence before anything runs
3 ``FAILED_CHECK``      a check the user asked for says no: ``compare --fail-if-slower``'s gate,
                        ``check``'s "Not ready"
130 ``INTERRUPTED``     Ctrl-C: what was measured is still written
======================  ===========================================================================

``diagnose`` runs the user's script, so it exits as the script ended first (:func:`script_ending`):
0 when it ended well or trainprobe stopped it cleanly, the script's own status when it failed, 124
when ``--timeout`` ended it, 128+N when signal N killed it; then 1 when an output was lost.

Each command's result maps to its status by one function below, so the commands (trainprobe/commands/)
and anyone scripting the api read the same policy. The functions read the api's results by their
attributes only: this module imports nothing of trainprobe's, so any layer may read it.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["OK", "PARTIAL", "BAD_INPUT", "FAILED_CHECK", "TIMEOUT", "INTERRUPTED",
           "script_ending", "of_run", "of_saved", "of_comparison", "of_check", "of_class_page"]

OK = 0
PARTIAL = 1
BAD_INPUT = 2  # click's own status for a usage error, so an option click refuses says the same
FAILED_CHECK = 3
TIMEOUT = 124  # as coreutils' timeout(1)
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C

# How the script ended -> trainprobe's status; "failed" and "killed" carry the script's own.
_ENDINGS = {"completed": OK, "stopped": OK, "interrupted": INTERRUPTED, "timeout": TIMEOUT,
            "not_started": BAD_INPUT, "running": PARTIAL}


def script_ending(status: str, script_exit: Optional[int]) -> int:
    """The status of a run of the user's script, as plain python would have exited (diagnose)."""
    if status in _ENDINGS:
        return _ENDINGS[status]
    if status == "killed":
        return 128 + abs(script_exit or 9) if script_exit and script_exit < 0 else 137
    if status == "failed":
        return script_exit if script_exit and script_exit > 0 else 1
    return PARTIAL


def of_saved(result: Any) -> int:
    """A diagnosis written from what was measured (report, trace, merge, verify): Ctrl-C, then an
    output lost or a what-if that could not measure."""
    if result.interrupted:
        return INTERRUPTED
    return PARTIAL if result.outputs_lost or result.whatif_failed else OK


def of_run(result: Any) -> int:
    """``diagnose``: how the script ended, then what :func:`of_saved` says of the outputs."""
    if result.interrupted:
        return INTERRUPTED  # Ctrl-C after the script ended: its record and report are written all the same
    outcome = result.record.outcome
    return script_ending(outcome.status, outcome.exit_code) or of_saved(result)


def of_comparison(result: Any) -> int:
    """``compare``: the gate first (a CI job must fail on it even when the page is lost)."""
    if result.gate is not None and result.gate.failed:
        return FAILED_CHECK
    return PARTIAL if result.page is None else OK


def of_check(result: Any) -> int:
    """``check``: the machine's grade (ready 0, warnings 1, not ready 3), then a file not written."""
    return result.result.exit_code or (PARTIAL if result.problems else OK)


def of_class_page(result: Any) -> int:
    """``check-summary``: no readable result at all is bad input; an unreadable one, or the page not
    written, is partial."""
    if not result.summary.rows:
        return BAD_INPUT
    return PARTIAL if result.summary.problems or result.page is None else OK
