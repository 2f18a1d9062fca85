"""The probe's request to end the script: its own module, so that what runs the script (probe/runner.py,
a notebook's cells: notebook/run.py) and what raises it (probe/clock.py) import it from below both."""

from __future__ import annotations

__all__ = ["ProbeStop"]


class ProbeStop(BaseException):
    """Raised from a step hook to end the script once the probe has measured enough.

    A BaseException so that ``except Exception`` in the user's loop lets it
    through, as it does KeyboardInterrupt.
    """

    def _render_traceback_(self) -> list[str]:
        """What IPython shows for it instead of a traceback (a cell magic that catches everything)."""
        return [f"trainprobe stopped the cell here: {self}"]
