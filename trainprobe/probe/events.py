"""The child's event stream: one JSON object per line, flushed as it is made.

The child writes what it measures here as it goes, so that a script that
crashes, calls ``os._exit``, or is killed (OOM, SIGKILL) still leaves
everything measured up to that point. The parent reads it back.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Iterator

__all__ = ["EventSink", "read_events"]


class EventSink:
    """Append-only JSON-lines writer, safe to call from several threads."""

    def __init__(self, path: str | os.PathLike) -> None:
        self._path = Path(path)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        # Line-buffered text: each event reaches the OS when its line ends.
        self._fh = open(self._path, "a", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()

    def emit(self, kind: str, **data: Any) -> None:
        line = json.dumps({"type": kind, **data}, default=str)
        with self._lock:
            if not self._fh.closed:
                self._fh.write(line + "\n")

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.flush()
                self._fh.close()


def read_events(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Every complete event in the file; a torn last line (killed mid-write) is skipped."""
    try:
        fh = open(path, encoding="utf-8")
    except OSError:
        return
    with fh:
        for line in fh:
            if not line.endswith("\n"):
                break
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                yield event
