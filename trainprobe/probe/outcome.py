"""How a run ended, in words: the one place an :class:`~trainprobe.record.Outcome` is made from a
process's return code and the child's own report (its ``outcome`` event).

A script run by the probe, one rank of a job, a trainer process and a notebook cell all end in one
of the same few ways (completed, stopped by trainprobe, failed, killed, interrupted, timed out),
and each is told the same way; out of memory is recognised by one test (:func:`out_of_memory`).
"""

from __future__ import annotations

import signal
from typing import Optional

from ..record import Outcome

__all__ = ["build_outcome", "out_of_memory", "signal_name", "oom_kill_count"]


def out_of_memory(exception_type: Optional[str], message: Optional[str]) -> bool:
    """CUDA's OutOfMemoryError, Python's MemoryError, and the CPU allocator's "can't allocate memory"."""
    text = str(message or "").lower()
    return bool(exception_type and ("OutOfMemory" in exception_type or exception_type.endswith("MemoryError"))) \
        or any(words in text for words in ("out of memory", "can't allocate memory", "cannot allocate memory"))


def signal_name(code: int) -> Optional[str]:
    if code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def oom_kill_count() -> Optional[int]:
    """The kernel's count of processes its out-of-memory killer ended (``oom_kill`` in /proc/vmstat,
    Linux 4.13+; else the memory cgroup's, v2 or v1); None where no counter can be read. A SIGKILL
    is called out of memory only when this count rose while the script ran."""
    sources = (("/proc/vmstat", "oom_kill "), ("/sys/fs/cgroup/memory.events", "oom_kill "),
               ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill "))
    for path, key in sources:
        try:
            with open(path, encoding="ascii") as fh:
                for line in fh:
                    if line.startswith(key):
                        return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return None


def build_outcome(returncode: int, child_outcome: Optional[dict], timed_out: bool, interrupted: bool,
             duration: float, startup: Optional[float], stop_requested: Optional[str],
             oom_killed: Optional[bool] = None, what: str = "the script") -> Outcome:
    """How the script ended, from its process's return code and the child's own report of it (its
    ``outcome`` event: None when it ended without one). ``oom_killed``: whether the kernel's OOM killer
    ended a process while the script ran (None: no counter could be read). ``what``: the words for
    what ran ("the script"; a notebook cell's "the code")."""
    signame = signal_name(returncode)
    base = dict(exit_code=returncode, signal=signame, duration=duration, startup=startup)
    if timed_out:
        return Outcome(status="timeout", reason=f"{what} ran past --timeout and trainprobe ended it", **base)
    info = child_outcome or {}
    exc_type = info.get("exception_type")
    oom = out_of_memory(exc_type, info.get("exception_message"))
    fields = dict(
        exception_type=exc_type,
        exception_message=info.get("exception_message"),
        traceback=info.get("traceback"),
        oom=oom,
        **base,
    )
    status = info.get("status")
    if status == "interrupted" or (interrupted and returncode in (-signal.SIGINT, -signal.SIGKILL, 130)):
        # A second Ctrl-C makes trainprobe end the script with SIGKILL: still an interruption.
        return Outcome(status="interrupted", reason="interrupted with Ctrl-C", **fields)
    if status == "stopped" or (stop_requested and returncode == 0):
        reason = info.get("reason") or stop_requested or "measured enough steps"
        return Outcome(status="stopped", reason=f"trainprobe stopped {what} cleanly: {reason}",
                       left_unrun=info.get("left_unrun"), **fields)
    if signame:
        hint = ""
        if signame == "SIGKILL":
            # Out of memory only on the kernel's word: a kill -9 from a user or a scheduler is not one.
            fields["oom"] = oom or bool(oom_killed)
            hint = (" by the kernel's out-of-memory killer" if oom_killed else
                    ", sender unknown (the kernel's out-of-memory counter did not move)" if oom_killed is False
                    else ", sender unknown")
        return Outcome(status="killed", reason=f"{what} was killed by {signame}{hint}", **fields)
    if returncode == 0:
        return Outcome(status="completed", reason=f"{what} ran to its end", **fields)
    if exc_type:
        return Outcome(status="failed", reason=f"{what} failed with {exc_type}", **fields)
    if child_outcome is None:
        return Outcome(status="failed", reason=f"{what} exited with status {returncode} before trainprobe "
                                               "could record how it ended (os._exit?)", **fields)
    return Outcome(status="failed", reason=f"{what} exited with status {returncode}", **fields)
