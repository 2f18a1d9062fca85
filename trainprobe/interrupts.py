"""Ctrl-C while trainprobe saves what it measured: held until the files are whole.

A Ctrl-C that lands while the record or the report is being written would leave
neither; one that lands while the rules run would lose the report. Inside
:func:`interrupts_held` a Ctrl-C is only noted, and the caller ends with exit
130 once its files are written.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator

__all__ = ["Held", "interrupts_held"]


class Held:
    """How many Ctrl-C arrived while interrupts were held."""

    def __init__(self) -> None:
        self.count = 0

    def __bool__(self) -> bool:
        return self.count > 0


@contextlib.contextmanager
def interrupts_held() -> Iterator[Held]:
    held = Held()
    if threading.current_thread() is not threading.main_thread():
        yield held  # only the main thread gets signals (a notebook's worker thread): nothing to hold
        return

    def note(signum, frame) -> None:
        held.count += 1

    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        yield held  # a background job started with Ctrl-C ignored: there is nothing to hold
        return
    previous = signal.signal(signal.SIGINT, note)
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous)
