"""Progress on stderr: one rewritten line on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

__all__ = ["Progress"]


class Progress:
    """Says which item is running. ``plain_lines`` writes a line per item when not a tty."""

    def __init__(self, stream: Optional[TextIO] = None, enabled: bool = True, plain_lines: bool = True) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled and (self.tty or plain_lines)
        self.t0 = time.perf_counter()
        self.current: Optional[str] = None
        self.item_t0 = 0.0

    def start(self, title: str) -> None:
        self.current, self.item_t0 = title, time.perf_counter()
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.t0
        if self.tty:
            self.stream.write(f"\r\033[K  [{elapsed:4.0f} s] measuring {title}...")
        else:
            self.stream.write(f"trainprobe check: measuring {title}...\n")
        self.stream.flush()

    def done(self) -> None:
        if self.enabled and not self.tty and self.current:
            self.stream.write(f"trainprobe check: {self.current} done in {time.perf_counter() - self.item_t0:.1f} s\n")
            self.stream.flush()
        self.current = None

    def finish(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()
