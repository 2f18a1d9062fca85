"""The two diagnostic windows: torch.profiler (op level) and cProfile (Python level).

Each covers a few steady steps after the measured window, so their own cost
never shows in the step split. The expensive part of torch.profiler is the
summary (``key_averages`` takes 0.2-1 s for a few thousand events), so it is
done once, after the script has stopped, not inside the loop.
"""

from __future__ import annotations

import contextlib
import cProfile
import os
import re
import sys
import tempfile
import time
from typing import Iterator, Optional

from .onethread import keep_to_this_thread
from .workers import FLAG_NAME

__all__ = ["quiet_native_stderr", "ProfilerWindow", "PythonWindow"]

# Kineto's own chatter on a machine without a GPU; the user's lines pass through.
_NOISE = re.compile(
    r"^(USDT:|ERROR:\S+ \S+ \d+:\d+ DeviceProperties\.cpp|.*gpuGetDeviceCount failed|"
    r"STAGE:|WARNING:\S+ \S+ \d+:\d+ (init|CuptiActivityProfiler)\.cpp)"
)


@contextlib.contextmanager
def quiet_native_stderr() -> Iterator[None]:
    """Hide the profiler's native log lines written to fd 2 while it starts or stops."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    with tempfile.TemporaryFile(mode="w+b") as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            kept = [
                line for line in capture.read().decode("utf-8", "replace").splitlines(keepends=True)
                if not _NOISE.match(line)
            ]
            if kept:
                os.write(2, "".join(kept).encode())


class ProfilerWindow:
    """torch.profiler started and stopped at step boundaries (no script edit)."""

    def __init__(self, with_cuda: bool) -> None:
        self.with_cuda = with_cuda
        self.profile = None
        self.start_time: Optional[float] = None
        self.stop_time: Optional[float] = None
        self.start_step = 0
        self.stop_step = 0
        self.error: Optional[str] = None

    def start(self, step: int) -> None:
        try:
            import torch.profiler as tp

            activities = [tp.ProfilerActivity.CPU]
            if self.with_cuda:
                activities.append(tp.ProfilerActivity.CUDA)
            self.profile = tp.profile(activities=activities, record_shapes=False, with_stack=False)
            with quiet_native_stderr():
                self.profile.start()
            self.start_time = time.monotonic()
            self.start_step = step
        except Exception as exc:  # a profiler that cannot start must not stop training
            self.error = f"torch.profiler could not start: {exc}"
            self.profile = None

    def stop(self, step: int) -> None:
        if self.profile is None or self.stop_time is not None:
            return
        self.stop_time = time.monotonic()
        self.stop_step = step
        try:
            with quiet_native_stderr():
                self.profile.stop()
        except Exception as exc:
            self.error = f"torch.profiler failed to stop: {exc}"
            self.profile = None

    @property
    def steps(self) -> int:
        return max(0, self.stop_step - self.start_step)

    @property
    def wall(self) -> float:
        if self.start_time is None or self.stop_time is None:
            return 0.0
        return self.stop_time - self.start_time


class PythonWindow:
    """cProfile over a few steps in the main thread, plus a flag that turns it on in workers."""

    def __init__(self, out_dir: str) -> None:
        self.out_dir = out_dir
        self.flag = os.path.join(out_dir, FLAG_NAME)
        self.profile: Optional[cProfile.Profile] = None
        self.start_time: Optional[float] = None
        self.wall = 0.0
        self.start_step = 0
        self.steps = 0
        self.stats_path: Optional[str] = None
        self.error: Optional[str] = None
        self.mixed: Optional[str] = None  # why other threads' calls may be in the profile, if they may

    def start(self, step: int) -> None:
        try:
            open(self.flag, "w").close()
            self.profile = cProfile.Profile()
            self.profile.enable()
            self.mixed = keep_to_this_thread(self.profile)  # Python 3.12+ profiles every thread otherwise
            self.start_time = time.monotonic()
            self.start_step = step
        except Exception as exc:  # e.g. another profiler is already active
            self.error = f"cProfile could not start: {exc}"
            self.profile = None

    def stop(self, step: int) -> None:
        if self.profile is None or self.stats_path is not None:
            return
        self.profile.disable()
        self.wall = time.monotonic() - (self.start_time or time.monotonic())
        self.steps = step - self.start_step
        try:
            os.unlink(self.flag)
        except OSError:
            pass
        path = os.path.join(self.out_dir, "main.pstats")
        try:
            self.profile.dump_stats(path)
            self.stats_path = path
        except OSError as exc:
            self.error = f"could not save the Python profile: {exc}"
