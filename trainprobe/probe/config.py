"""What the parent tells the child: the target, the window plan, where to write.

Passed as a JSON file named by ``TRAINPROBE_CHILD_CONFIG`` so that the
script's own ``sys.argv`` stays untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from ..jsonio import JsonMixin
from ..vocabulary import DEFAULT_MAX_SECONDS, DEFAULT_WARMUP_STEPS, DEFAULT_WINDOW_SECONDS
from .plugins import PluginSpec

__all__ = ["WindowPlan", "ChildConfig", "CONFIG_ENV", "window_progress"]

CONFIG_ENV = "TRAINPROBE_CHILD_CONFIG"


@dataclass(frozen=True)
class WindowPlan(JsonMixin):
    """How many steps to watch, and when to profile.

    A default run: ``warmup_steps`` steps (compilation, autotune, first
    allocations), then ``census_steps`` counting steps (FLOPs, bytes and memory,
    under a dispatch mode: probe/census.py), then a steady window sized by time (at least
    ``steady_min_steps`` and ``steady_seconds``), then a short torch.profiler
    window and a short cProfile window, then a clean stop. Windows are sized
    by time, not steps, because step times range from 1 ms to seconds.
    """

    warmup_steps: int = DEFAULT_WARMUP_STEPS
    warmup_max_seconds: float = 20.0  # slow steps: leave warm-up after 2 steps past this
    steady_min_steps: int = 8
    steady_seconds: float = DEFAULT_WINDOW_SECONDS
    steady_max_steps: int = 300  # enough for stable medians of fast steps
    steady_max_seconds: float = 25.0  # very slow steps: end the window after 5 steps past this
    census: bool = True  # count one step's FLOPs, bytes and memory after warm-up, and measure the CPU's peak
    census_steps: int = 2  # two: what outlives a step shows a leak
    # Measure the hardware's peak after the run without counting steps: a plan fitted to a short script
    # (probe/refit.py) may have no step to spare for counting, yet the peak is the hardware's, not the steps'.
    peak: bool = False
    profile_min_steps: int = 3
    profile_seconds: float = 1.0
    profile_max_steps: int = 20
    cprofile_min_steps: int = 3
    cprofile_seconds: float = 1.5
    cprofile_max_steps: int = 50
    max_seconds: Optional[float] = DEFAULT_MAX_SECONDS  # stop at the next step after this long (None: no limit)
    full: bool = False  # let the script run to its end
    steps: Optional[int] = None  # exact number of steady steps, overrides steady_seconds
    profiler: bool = True
    cprofile: bool = True
    # A second run of a script whose first run made no step: no backward(), no optimizer step and no
    # nn.Module forward marked an iteration, yet it fetched DataLoader batches (a hand-written update on
    # bare tensors). Each batch of the loader that began a step then begins the next (probe/refit.py).
    steps_by_batches: bool = False

    @classmethod
    def from_options(cls, *, warmup_steps: int, steps: Optional[int], window: float, max_seconds: Optional[float],
                     full: bool, profile: bool) -> "WindowPlan":
        """The plan the window options of ``trainprobe diagnose``, ``%%trainprobe`` and
        ``trainprobe.measure`` describe (``--full`` lifts ``--max-seconds``)."""
        return cls(warmup_steps=warmup_steps, steps=steps, steady_seconds=window,
                   max_seconds=None if full else max_seconds, full=full, profiler=profile, cprofile=profile)


@dataclass(frozen=True)
class ChildConfig(JsonMixin):
    argv: tuple[str, ...] = ()  # ["script.py", *args] or ["-m", "pkg.mod", *args]
    out_dir: str = ""
    events_path: str = ""
    t0: float = 0.0  # parent's time.monotonic() at launch: all times are relative to it
    plan: WindowPlan = field(default_factory=WindowPlan)
    trace_path: Optional[str] = None
    plugins: tuple[PluginSpec, ...] = ()  # code that acts at the hooks' points (the what-if's fixes)
    job: bool = False  # one rank of a torchrun job: write under out_dir/rank<RANK>/ (probe/ranks.py)


# What the progress lines say as each window starts (trainprobe diagnose's, and %%trainprobe's in a cell).
_WINDOW_PROGRESS = {
    "steady": "warm-up done; measuring steady steps",
    "profiled": "profiling ops (torch.profiler)",
    "cprofile": "profiling Python (cProfile)",
    "after": "measurements complete",
}


def window_progress(event: Mapping) -> Optional[str]:
    """The progress line's words for a ``window`` event (its ``name``; ``waits_for`` while a window waits,
    outside every window, for the next epoch's start); None for a window with none (the warm-up)."""
    waits_for = event.get("waits_for")
    label = _WINDOW_PROGRESS.get(str(waits_for or event.get("name")))
    if label and waits_for:
        return f"waiting for the next epoch's first steps before {label}"
    return label

