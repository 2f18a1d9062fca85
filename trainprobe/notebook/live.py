"""Probe code in this very process: a ``%%trainprobe`` cell, or a ``with trainprobe.measure():`` block.

The same hooks and step clock as the probed child (``probe/instrument.py``), installed in the
kernel's process for the length of the block and taken off again after it, whatever happens in it:
nothing stays patched. The samplers run in a helper process that watches this one
(:mod:`.watch`). When the probe has measured enough it stops the block at a step boundary
(``ProbeStop``, raised after an optimizer step or before a batch is fetched), so the model and the
optimizer are as one finished step left them, and the kernel's state stays usable.

The stages are those of ``trainprobe diagnose``: the events make a ``RunRecord`` (``run.json``), the
rules a ``Diagnosis``, and ``api.finish`` writes the report, all in one output folder.
"""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ..version import __version__
from ..api import DiagnoseResult, TrainprobeError, finish
from ..api.outputs import output_folder
from ..probe.config import WindowPlan, window_progress
from ..record import Availability, Invocation, Outcome, RunRecord, Samples
from ..record_file import write_record

__all__ = ["LiveOptions", "LiveSession"]

_HELPER_GRACE = 5.0  # seconds the sampling helper gets to write its samples


@dataclass(frozen=True)
class LiveOptions:
    out_dir: Optional[Path] = None  # default: a new folder under ./trainprobe-runs
    plan: WindowPlan = field(default_factory=WindowPlan)
    rule_dirs: tuple[Path, ...] = ()
    interval: float = 0.1  # seconds between samples
    label: str = "notebook"  # names the default folder; the report's title
    command_line: str = ""  # what the user wrote (%%trainprobe --full)
    quiet: bool = False  # no progress line


def _live_instrumentation(config, sink):
    """The child's instrumentation, less what only a child may do (end its process)."""
    from ..probe.instrument import Instrumentation

    class LiveInstrumentation(Instrumentation):
        swallowed = False

        def _stop_swallowed(self) -> None:
            # The block caught ProbeStop (a bare except) and went on: keep what was measured and let it
            # run on, unmeasured. A child would end its process here; a kernel's must live.
            if self.swallowed:
                return
            self.swallowed = True
            self.sink.emit("note", text="the code caught trainprobe's stop request (a bare except?) and ran on "
                                        "to its end; the steps after the request were not measured")
            self.finish()

    return LiveInstrumentation(config, sink)


def _sink(path: Path, on_event: Callable[[str, dict], None]):
    from ..probe.events import EventSink

    class ProgressSink(EventSink):
        """Tells the progress line about window changes, in the thread that makes them."""

        def emit(self, kind: str, **data: Any) -> None:
            super().emit(kind, **data)
            if kind in ("window", "stop_requested"):
                try:
                    on_event(kind, data)
                except Exception:  # pylint: disable=broad-except  # a display must not break training
                    pass

    return ProgressSink(path)


class LiveSession:
    """One probed block. ``start()``, run the code, ``stop(exc)``: the block's exception, or None."""

    def __init__(self, options: LiveOptions, progress: Optional[Callable[[str], None]] = None,
                 cells: Optional[Callable[[], dict[str, str]]] = None) -> None:
        self.options = options
        self.progress = progress or (lambda line: None)
        self.cells = cells or (lambda: {})  # file name of a kernel's cell -> its cell file name
        self.out: Optional[Path] = None
        self.t0 = 0.0
        self.started_at = ""
        self._helper: Optional[subprocess.Popen] = None
        self._sink = None
        self._instr = None

    # -- start -------------------------------------------------------------------
    def start(self) -> "LiveSession":
        from ..probe.config import ChildConfig

        self.out = self._folder()
        self.t0 = time.monotonic()
        self.started_at = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
        self._helper = self._start_helper()
        self._sink = _sink(self.out / "events.jsonl", self._on_event)
        self._sink.emit("started", pid=os.getpid(), t=0.0)
        config = ChildConfig(out_dir=str(self.out.resolve()), events_path=str((self.out / "events.jsonl").resolve()),
                             t0=self.t0, plan=self.options.plan)
        try:
            self._instr = _live_instrumentation(config, self._sink)
            self._instr.install()
            self._sink.emit("instrumented", t=time.monotonic() - self.t0)
        except Exception as exc:  # pylint: disable=broad-except  # run the code unmeasured rather than not at all
            self._uninstall()
            self._sink.emit("note", text=f"trainprobe could not instrument the code ({type(exc).__name__}: {exc}); "
                                         "it ran without step timing")
        self.progress("trainprobe: warming up")
        return self

    def _folder(self) -> Path:
        if self.options.out_dir:
            return output_folder(self.options.out_dir)
        from ..probe.launch import default_out_dir

        try:
            return default_out_dir([self.options.label])
        except OSError as exc:
            raise TrainprobeError(f"cannot create an output folder under ./trainprobe-runs: {exc.strerror or exc}") \
                from None

    def _start_helper(self) -> Optional[subprocess.Popen]:
        from .watch import BOOTSTRAP

        package_parent = str(Path(__file__).resolve().parents[2])
        command = [sys.executable, "-c", BOOTSTRAP, package_parent, "--pid", str(os.getpid()), "--t0", repr(self.t0),
                   "--interval", str(self.options.interval), "--out", str(self.out / "samples.json")]
        try:
            return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, close_fds=True)
        except OSError:
            return None  # no samples; the steps are still measured

    def _on_event(self, kind: str, data: dict) -> None:
        if kind == "stop_requested":
            self.progress(f"trainprobe: stopping at step {data.get('step')}: {data.get('reason')}")
            return
        label = window_progress(data)
        if label:
            self.progress(f"trainprobe: {label} (step {data.get('step')})")

    # -- stop --------------------------------------------------------------------
    def stop(self, exc: Optional[BaseException]) -> DiagnoseResult:
        """End the probe (the hooks come off first, whatever fails after), save the record, diagnose."""
        end = time.monotonic()
        outcome = self._end_events(exc, end)
        samples = self._stop_helper()
        self.progress("trainprobe: writing the report")
        try:
            record = self._record(outcome, samples)
            record_path = self.out / "run.json"
            lost = write_record(record, record_path)  # a full disk costs run.json, not the report in the notebook
            return finish(record, record_path, self.options.rule_dirs, problems=[lost] if lost else [],
                          record_saved=lost is None)
        except Exception as err:  # pylint: disable=broad-except  # the cell's own ending must still come through
            raise TrainprobeError(f"trainprobe could not make its record ({type(err).__name__}: {err}); what it "
                                  f"measured is in {self.out / 'events.jsonl'}") from err

    def _end_events(self, exc: Optional[BaseException], end: float) -> dict:
        sink, instr = self._sink, self._instr
        try:
            outcome = _ending(exc)
            sink.emit("script_ended", t=end - self.t0, status=outcome["status"])
            if instr is not None:
                try:
                    instr.finish()
                except Exception as err:  # pylint: disable=broad-except
                    sink.emit("note", text=f"trainprobe could not summarize its profiles ({type(err).__name__}: {err})")
            outcome["reason"] = getattr(getattr(instr, "clock", None), "stop_reason", None)
            sink.emit("outcome", **outcome)
            sink.close()
            return outcome
        finally:
            self._uninstall()

    def _uninstall(self) -> None:
        instr, self._instr = self._instr, None
        if instr is not None:
            instr.uninstall()

    def _stop_helper(self) -> Samples:
        helper = self._helper
        path = self.out / "samples.json"
        if helper is not None:
            from .watch import wait_briefly

            try:
                helper.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            if wait_briefly(helper, _HELPER_GRACE) is None:
                helper.kill()
                helper.wait()
        try:
            return Samples.load(path)
        except (OSError, ValueError, TypeError):
            reason = "the sampling helper process did not hand over its samples"
            return Samples(host_availability=Availability(False, reason), gpu_availability=Availability(False, reason))

    def _record(self, ending: dict, samples: Samples) -> RunRecord:
        from ..machine import collect_environment
        from ..probe.assemble import EventFollower, assemble_record
        from .relabel import relabel_cells

        child = EventFollower(str(self.out / "events.jsonl")).poll()
        cwd = os.getcwd()
        mapping = self.cells()
        user_dirs = tuple({cwd, *(os.path.dirname(name) for name in mapping)})
        first = child.clock.get("first_activity")
        if first is None and child.steps:
            first = child.steps[0].start
        record = assemble_record(
            invocation=self._invocation(cwd), environment=collect_environment(data_paths=(cwd,)), child=child,
            samples=samples, outcome=_outcome(ending, child, time.monotonic() - self.t0, first),
            out_dir=str(self.out), user_dirs=user_dirs, final=True,
        )
        return relabel_cells(record, mapping)

    def _invocation(self, cwd: str) -> Invocation:
        options = self.options
        return Invocation(
            script=None, module=None, args=(), cwd=cwd, command_line=options.command_line,
            started_at=self.started_at, t0_monotonic=self.t0, python_executable=sys.executable,
            trainprobe_version=__version__,
            options={"source": "notebook", "label": options.label, "plan": options.plan.to_dict(),
                     "interval": options.interval},
        )


def _ending(exc: Optional[BaseException]) -> dict:
    """The block's ending as the child's ``outcome`` event says it."""
    from ..probe.runner import ProbeStop, user_traceback

    if exc is None:
        return {"status": "completed", "exit_code": 0}
    if isinstance(exc, ProbeStop):
        return {"status": "stopped", "exit_code": 0}
    if isinstance(exc, KeyboardInterrupt):
        return {"status": "interrupted", "exit_code": 130, "exception_type": "KeyboardInterrupt"}
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    return {"status": "failed", "exit_code": 1, "exception_type": name, "exception_message": str(exc),
            "traceback": user_traceback(exc)}


def _outcome(ending: dict, child, duration: float, startup: Optional[float]) -> Outcome:
    """How the cell's code ended, told as a script's ending is (probe/outcome.py): the cell ran in this
    process, so its ending's status stands for a return code."""
    from ..probe.outcome import build_outcome

    status = ending["status"]
    code = {"completed": 0, "stopped": 0, "interrupted": 130}.get(status, 1)
    return build_outcome(code, ending, False, status == "interrupted", duration, startup, child.stop_requested,
                         what="the code")
