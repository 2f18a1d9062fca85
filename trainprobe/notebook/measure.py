"""``with trainprobe.measure(): ...``: probe a block of code in this process, as ``%%trainprobe`` a cell."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

from ..api import DiagnoseResult
from ..probe.config import WindowPlan
from ..vocabulary import DEFAULT_MAX_SECONDS, DEFAULT_WARMUP_STEPS, DEFAULT_WINDOW_SECONDS
from .live import LiveOptions, LiveSession

__all__ = ["measure"]


class measure:  # pylint: disable=invalid-name  # used as a function: with trainprobe.measure(): ...
    """Probe a block of code in this process, as ``%%trainprobe`` probes a cell::

        with trainprobe.measure(max_seconds=60) as run:
            train(model, loader)
        run.result.diagnosis.verdict

    When trainprobe has measured enough it stops the block at a step boundary and execution goes on
    after the ``with``; an exception of the block's own is raised again once the report is written.
    The arguments are those of ``trainprobe diagnose``. In a notebook the verdict shows in the cell's
    output, with a link to the full report; elsewhere it is printed.
    """

    def __init__(self, out: Optional[str | os.PathLike] = None, *, max_seconds: Optional[float] = DEFAULT_MAX_SECONDS,
                 full: bool = False, warmup_steps: int = DEFAULT_WARMUP_STEPS, steps: Optional[int] = None,
                 window: float = DEFAULT_WINDOW_SECONDS,
                 profile: bool = True, rules: tuple = (), quiet: bool = False, show: bool = True,
                 plan: Optional[WindowPlan] = None) -> None:
        plan = plan or WindowPlan.from_options(warmup_steps=warmup_steps, steps=steps, window=window,
                                               max_seconds=max_seconds, full=full, profile=profile)
        self.options = LiveOptions(out_dir=Path(out) if out else None, plan=plan,
                                   rule_dirs=tuple(Path(r) for r in rules), label="measure", quiet=quiet,
                                   command_line="with trainprobe.measure(...)")
        self.show = show
        self.result: Optional[DiagnoseResult] = None
        self._session: Optional[LiveSession] = None
        self._line = None

    def __enter__(self) -> "measure":
        from .show import ProgressLine

        self._line = ProgressLine(enabled=not self.options.quiet)
        from .kernel import kernel_cells

        self._session = LiveSession(self.options, self._line.update, kernel_cells).start()
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        from ..probe.runner import ProbeStop
        from .show import show_result

        from ..api import TrainprobeError

        try:
            self.result = self._session.stop(exc)
        except TrainprobeError as err:
            print(err, file=sys.stderr)  # the block's own exception, if any, still comes through
        finally:
            self._line.close()
        if self.show and self.result is not None:
            show_result(self.result)
        return isinstance(exc, ProbeStop)  # trainprobe's own stop ends the block, not the program
