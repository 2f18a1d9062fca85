"""The child's event stream: one JSON object per line, written as the run goes.

The child writes what it measures here as it goes, so that a script that
crashes, calls ``os._exit``, or is killed (OOM, SIGKILL) still leaves
everything measured up to its last moments. The parent reads it back.

Writing was the probe's main cost per step on fast loops (a ``json.dumps`` of a
dict and a ``write`` call per step were ~45 µs of a 330 µs step), so a step
event is a short tuple of values (see ``stepcodec``), kept as it is until the
batch it belongs to is encoded and handed to the OS in one write, at
most ``FLUSH_EVERY`` seconds apart (a small thread writes out what waits
longer, e.g. before a hang); anything other than a step is written at once.
A kill loses at most that last fraction of a second of steps.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from .stepcodec import encode_step

__all__ = ["EventSink", "read_events", "FLUSH_EVERY"]

FLUSH_EVERY = 0.2  # seconds


class EventSink:
    """Append-only JSON-lines writer, safe to call from several threads."""

    def __init__(self, path: str | os.PathLike, clock=time.monotonic) -> None:
        self._path = Path(path)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self._path, "a", encoding="utf-8")
        self._lock = threading.Lock()
        self._pending: list[str | tuple] = []
        self._clock = clock
        self._last_flush = clock()
        self._pid = os.getpid()  # a forked DataLoader worker inherits this object: it must not write
        self.write_error: OSError | None = None  # a full disk: what was written stands, the rest is dropped
        # Steps buffered just before a hang (or a long pause) reach the disk anyway.
        self._flusher = threading.Thread(target=self._flush_now_and_then, name="trainprobe-events", daemon=True)
        self._flusher.start()

    def _flush_now_and_then(self) -> None:
        while True:
            time.sleep(FLUSH_EVERY)
            with self._lock:
                if self._fh.closed or os.getpid() != self._pid:
                    return
                if self._pending:
                    self._flush_locked(self._clock())

    def emit(self, kind: str, **data: Any) -> None:
        line = json.dumps({"type": kind, **data}, default=str) + "\n"
        with self._lock:
            if self._fh.closed:
                return
            self._pending.append(line)
            self._flush_locked(self._clock())

    def emit_step(self, values: tuple) -> None:
        """A step event (``stepcodec.STEP_FIELDS`` values: numbers, strings, bools, None)."""
        with self._lock:
            if self._fh.closed:
                return
            self._pending.append(values)
            now = self._clock()
            if now - self._last_flush >= FLUSH_EVERY:
                self._flush_locked(now)

    def flush(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._flush_locked(self._clock())

    def _flush_locked(self, now: float) -> None:
        if os.getpid() != self._pid:
            self._pending.clear()
            return
        self._last_flush = now
        if self.write_error is not None:
            self._pending.clear()
            return
        try:
            if self._pending:
                self._fh.write("".join(_line(item) for item in self._pending))
            self._fh.flush()
        except OSError as exc:
            # A full disk must not end the user's training with trainprobe's error: stop writing. The
            # parent keeps the steps that reached the file (a torn last line is skipped when read).
            self.write_error = exc
        finally:
            self._pending.clear()

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._flush_locked(self._clock())
                try:
                    self._fh.close()
                except OSError:
                    pass  # its buffer could not be written out (full disk): what was written stands


def _line(item: "str | tuple") -> str:
    """A pending line: ready text, or a step's values encoded now, with the batch."""
    if isinstance(item, str):
        return item
    return encode_step(item)


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
