"""The child process: instrument, run the user's script as python would, report.

Started by the parent as ``python -c <bootstrap>``; the bootstrap puts
trainprobe on ``sys.path`` and calls :func:`main`, which takes that entry off
again so the script sees the ``sys.path`` plain python would give it.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Optional

from .config import CONFIG_ENV, ChildConfig
from .events import EventSink
from .plugins import load_plugins
from .runner import RunResult, exit_like_python, parse_target, print_like_python, run_target

__all__ = ["main", "BOOTSTRAP"]

# argv[1] of the bootstrap is the folder that holds the trainprobe package.
BOOTSTRAP = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from trainprobe.probe.child import main; main(sys.argv[1])"
)


def _flush_before_os_exit(sink: EventSink) -> None:
    """``os._exit`` skips every cleanup: write out the buffered steps first (this process only)."""
    original = os._exit
    pid = os.getpid()

    def _exit(code: int) -> None:
        if os.getpid() == pid:
            try:
                sink.emit("note", text=f"the script ended itself with os._exit({code})")
                sink.flush()
            except Exception:
                pass
        original(code)

    os._exit = _exit


def _instrument(config: ChildConfig, sink: EventSink):
    """The hooks, profiler windows and plug-ins, installed; None when they could not be (the script
    still runs, unmeasured, with a note saying why)."""
    try:
        from .instrument import Instrumentation

        instrumentation = Instrumentation(config, sink)
        plugin = load_plugins(config.plugins)
        if plugin is not None:
            instrumentation.plug_in(plugin)
        instrumentation.install()
        if not config.job:  # training in processes the script starts (hogwild): probe/trainers.py
            from .trainers import capture_trainers

            capture_trainers(instrumentation, config)
        sink.emit("instrumented", t=time.monotonic() - config.t0)
        return instrumentation
    except Exception as exc:  # measure less rather than not run the script
        sink.emit("note", text=f"trainprobe could not instrument the run ({type(exc).__name__}: {exc}); "
                               "the script ran without step timing")
        return None


def _stop_reason(result: RunResult, instrumentation) -> Optional[str]:
    reason = getattr(instrumentation.clock, "stop_reason", None) if instrumentation else None
    if reason and result.left_unrun:
        return f"{reason}; {result.left_unrun}"
    return reason


def _emit_outcome(sink: EventSink, result: RunResult, instrumentation) -> None:
    sink.emit(
        "outcome",
        status=result.status,
        exit_code=result.exit_code,
        exception_type=result.exception_type,
        exception_message=result.exception_message,
        traceback=result.traceback,
        reason=_stop_reason(result, instrumentation),
        left_unrun=result.left_unrun,
    )
    sink.close()


def main(bootstrap_path: str = "") -> None:
    if bootstrap_path and bootstrap_path in sys.path:
        sys.path.remove(bootstrap_path)
    config = ChildConfig.load(os.environ.pop(CONFIG_ENV))
    if config.job:  # one rank of a torchrun job: its own folder; its collectives are timed by a plug-in
        from .ranks import for_this_rank

        config = for_this_rank(config)
    sink = EventSink(config.events_path)
    sink.emit("started", pid=os.getpid(), t=time.monotonic() - config.t0)
    target = parse_target(config.argv)
    del sys.argv[1:]
    _flush_before_os_exit(sink)

    try:
        instrumentation = _instrument(config, sink)
    except KeyboardInterrupt:
        # Ctrl-C while trainprobe set up (importing torch takes seconds): the script never started. End
        # as python ends on Ctrl-C, without a traceback through trainprobe's frames.
        result = RunResult(status="interrupted", exit_code=130, exception_type="KeyboardInterrupt",
                           exception_message="Ctrl-C before the script started")
        _emit_outcome(sink, result, None)
        exit_like_python(result)

    result = run_target(target)
    sink.emit("script_ended", t=time.monotonic() - config.t0, status=result.status)
    if instrumentation is not None:
        try:
            instrumentation.finish()
        except Exception as exc:
            sink.emit("note", text=f"trainprobe could not summarize its profiles ({type(exc).__name__}: {exc})")
        except KeyboardInterrupt:  # the script has ended as it would have: only the summary is lost
            sink.emit("note", text="Ctrl-C while trainprobe summarized its profiles: they are left out")
    _emit_outcome(sink, result, instrumentation)
    print_like_python(result)
    exit_like_python(result)
