"""Training in child processes the script starts itself (torch.multiprocessing, hogwild style).

In the probed process, before the script runs, trainprobe arranges that every process the script
starts carries the probe: a forked child keeps the hooks it inherits and gets its own step clock
and event stream (``os.register_at_fork``); a spawned child (``spawn``, ``forkserver`` go through
``multiprocessing.spawn.get_command_line``) installs the hooks before it imports the script. Each
writes under ``trainer<pid>/``, and only once it makes a training step: a process that never
trains (a DataLoader worker, a data producer) leaves nothing. When the script ends, the processes
that made training steps are the job's trainers (job/trainers.py builds their job record).
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

__all__ = ["capture_trainers", "spawned", "TRAINER_ENV", "TRAINER_DIR"]

TRAINER_ENV = "TRAINPROBE_TRAINER_CONFIG"
TRAINER_DIR = re.compile(r"^trainer(\d+)$")  # a trainer's folder: trainer<PID>


class _LazySink:
    """An event stream opened at its first training step: a process that never trains (a DataLoader
    worker) leaves no folder; what it reported before that step is written then."""

    def __init__(self, out_dir: str, t0: float) -> None:
        self.out_dir, self.t0 = out_dir, t0
        self.on_open = lambda: None
        self._sink = None
        self._waiting: list[tuple[str, dict]] = []

    def _open(self):
        if self._sink is None:
            from .events import EventSink

            folder = Path(self.out_dir) / f"trainer{os.getpid()}"
            self._sink = EventSink(folder / "events.jsonl")
            self._sink.emit("started", pid=os.getpid(), t=time.monotonic() - self.t0)
            for kind, data in self._waiting:
                self._sink.emit(kind, **data)
            self._waiting.clear()
            self.on_open()
        return self._sink

    @property
    def opened(self) -> bool:
        return self._sink is not None

    def emit(self, kind: str, **data) -> None:
        if self._sink is None:
            if len(self._waiting) < 100:
                self._waiting.append((kind, data))
            return
        self._sink.emit(kind, **data)

    def emit_step(self, values: tuple) -> None:
        self._open().emit_step(values)

    def flush(self) -> None:
        if self._sink is not None:
            self._sink.flush()

    def close(self) -> None:
        if self._sink is not None:
            self._sink.close()


def _trainer_plan(plan):
    """A trainer is measured, never stopped, and not profiled (the main process decides the run's end)."""
    return replace(plan, full=True, profiler=False, cprofile=False, max_seconds=None)


def _probe_this_process(instrumentation, config) -> None:
    """Give ``instrumentation`` (inherited by fork, or new) this process's own clock and stream."""
    from .clock import StepClock

    sink = _LazySink(config.out_dir, config.t0)
    instrumentation.sink = sink
    instrumentation.config = replace(config, plan=_trainer_plan(config.plan))
    instrumentation.clock = StepClock(instrumentation.config.plan, config.t0, sink.emit,
                                      emit_step=sink.emit_step, drain=instrumentation._drain_device)
    instrumentation.profiler_window = None
    instrumentation._finished = False  # pylint: disable=protected-access

    def at_first_step() -> None:
        # Registered now, not at the fork: a forked Process clears the finalizers it inherits
        # when it starts (multiprocessing's _bootstrap), and runs the ones made since at its end.
        try:
            from multiprocessing.util import Finalize

            Finalize(None, _finish, args=(instrumentation, sink), exitpriority=100)
        except Exception:
            pass

    sink.on_open = at_first_step


def _finish(instrumentation, sink: _LazySink) -> None:
    if not sink.opened:
        return  # no training step here: a worker, not a trainer
    try:
        instrumentation.python_window.stats_path = None
    except Exception:
        pass
    try:
        instrumentation.finish()
    except Exception as exc:
        sink.emit("note", text=f"trainprobe could not summarize this trainer ({type(exc).__name__}: {exc})")
    sink.emit("outcome", status="completed", exit_code=0)
    sink.close()


def capture_trainers(instrumentation, config) -> None:
    """In the probed process: carry the probe into every process the script starts."""
    main_pid = os.getpid()
    # No argv: a trainer runs what its parent hands it, and the script's arguments (secrets too) stay
    # out of the run folder.
    trainer_config = replace(config, plugins=(), trace_path=None, argv=())
    path = Path(config.out_dir) / "trainer-config.json"
    trainer_config.save(path)
    os.environ[TRAINER_ENV] = str(path.resolve())

    def after_fork_in_child() -> None:
        if os.getpid() != main_pid:
            try:
                _probe_this_process(instrumentation, trainer_config)
            except Exception:
                pass

    os.register_at_fork(after_in_child=after_fork_in_child)
    try:
        import multiprocessing.spawn as mp_spawn
    except ImportError:
        return
    original = mp_spawn.get_command_line
    package_parent = str(Path(__file__).resolve().parents[2])
    if getattr(original, "_trainprobe", False):
        return

    def get_command_line(**kwds):
        command = list(original(**kwds))
        # [python, ..., "-c", "from multiprocessing.spawn import spawn_main; spawn_main(...)", ...]
        if "-c" in command and not _from_dataloader():
            i = command.index("-c") + 1
            command[i] = (f"import sys; sys.path.insert(0, {package_parent!r}); "
                          "from trainprobe.probe.trainers import spawned; spawned(); "
                          f"sys.path.remove({package_parent!r}); " + command[i])
        return command

    get_command_line._trainprobe = True  # type: ignore[attr-defined]
    mp_spawn.get_command_line = get_command_line


def _from_dataloader() -> bool:
    """Whether a DataLoader is starting this process (a worker: it needs no trainer probe, and a
    worker's start is a cost the user measures)."""
    try:
        frame = sys._getframe(2)  # pylint: disable=protected-access
    except ValueError:
        return False
    from .frames import is_torch

    while frame is not None:
        name = frame.f_code.co_filename
        # torch's own dataloader.py (probe/frames.py), not a user's file of that name in a folder named torch
        if name.replace("\\", "/").endswith("torch/utils/data/dataloader.py") and is_torch(name):
            return True
        frame = frame.f_back
    return False


def spawned() -> None:
    """In a spawned child: install the probe before the script is imported again; never fails it."""
    try:
        from .config import ChildConfig
        from .instrument import Instrumentation

        config = ChildConfig.load(os.environ[TRAINER_ENV])
        sink = _LazySink(config.out_dir, config.t0)
        instrumentation = Instrumentation(replace(config, plan=_trainer_plan(config.plan)), sink)
        _probe_this_process(instrumentation, config)
        instrumentation.install()
    except Exception:
        pass
