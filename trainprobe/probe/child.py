"""The child process: instrument, run the user's script as python would, report.

Started by the parent as ``python -c <bootstrap>``; the bootstrap puts
trainprobe on ``sys.path`` and calls :func:`main`, which takes that entry off
again so the script sees the ``sys.path`` plain python would give it.
"""

from __future__ import annotations

import os
import sys
import time

from .config import CONFIG_ENV, ChildConfig
from .events import EventSink
from .plugins import load_plugins
from .runner import exit_like_python, parse_target, print_like_python, run_target

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


def main(bootstrap_path: str = "") -> None:
    if bootstrap_path and bootstrap_path in sys.path:
        sys.path.remove(bootstrap_path)
    config = ChildConfig.load(os.environ.pop(CONFIG_ENV))
    sink = EventSink(config.events_path)
    sink.emit("started", pid=os.getpid(), t=time.monotonic() - config.t0)
    target = parse_target(config.argv)
    del sys.argv[1:]
    _flush_before_os_exit(sink)

    instrumentation = None
    try:
        from .instrument import Instrumentation

        instrumentation = Instrumentation(config, sink)
        plugin = load_plugins(config.plugins)
        if plugin is not None:
            instrumentation.plug_in(plugin)
        instrumentation.install()
        sink.emit("instrumented", t=time.monotonic() - config.t0)
    except Exception as exc:  # measure less rather than not run the script
        sink.emit("note", text=f"trainprobe could not instrument the run ({type(exc).__name__}: {exc}); "
                               "the script ran without step timing")
        instrumentation = None

    result = run_target(target)
    sink.emit("script_ended", t=time.monotonic() - config.t0, status=result.status)
    if instrumentation is not None:
        try:
            instrumentation.finish()
        except Exception as exc:
            sink.emit("note", text=f"trainprobe could not summarize its profiles ({type(exc).__name__}: {exc})")
    sink.emit(
        "outcome",
        status=result.status,
        exit_code=result.exit_code,
        exception_type=result.exception_type,
        exception_message=result.exception_message,
        traceback=result.traceback,
        reason=getattr(instrumentation.clock, "stop_reason", None) if instrumentation else None,
    )
    sink.close()
    print_like_python(result)
    exit_like_python(result)
