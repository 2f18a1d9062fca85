"""The step clock: splits each training step into phases and runs the window plan.

Hooks call ``enter(phase)``/``exit(phase)`` around data waits, copies,
forwards, backwards and optimizer steps. Time is exclusive: a copy made
inside a forward counts as copy, not forward. ``boundary(kind)`` closes a
step.

Step boundaries are found without the user's help, in order of preference:
an optimizer step (``optimizer``), else a backward call (``backward``: a
hand-written SGD loop with no optimizer object), else a DataLoader batch
(``batch``: an inference loop). The clock starts on the weakest kind it
sees and moves up as soon as a stronger one appears, so gradient
accumulation (several backwards per optimizer step) gives one step per
optimizer step.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

from ..record import PHASE_AFTER, PHASE_CPROFILE, PHASE_PROFILED, PHASE_STEADY, PHASE_WARMUP
from .config import WindowPlan
from .runner import ProbeStop

__all__ = ["PHASES", "StepClock"]

# ``debug`` is anomaly mode's stack capture, nested in the forward it slows down.
PHASES = ("data_wait", "h2d", "forward", "backward", "optimizer", "zero_grad", "eval", "debug")
_BOUNDARY_RANK = {"batch": 0, "backward": 1, "optimizer": 2}


class StepClock:
    def __init__(
        self,
        plan: WindowPlan,
        t0: float,
        emit: Callable[..., None],
        on_window: Callable[[str], None] = lambda event: None,
        on_stop_swallowed: Callable[[], None] = lambda: None,
        now: Callable[[], float] = time.monotonic,
        emit_step: Optional[Callable[[tuple], None]] = None,
    ) -> None:
        self.plan = plan
        self.t0 = t0
        self._emit = emit
        # A step's values, in stepcodec.STEP_FIELDS order; the sink has a cheaper path for them.
        self._emit_step = emit_step or (lambda values: emit("step", v=values))
        self._on_window = on_window
        self._on_stop_swallowed = on_stop_swallowed
        self.now = now
        self.mode: Optional[str] = None
        self.window = PHASE_WARMUP
        self.stop_reason: Optional[str] = None
        self.first_activity: Optional[float] = None
        self.steps_emitted = 0
        self._window_steps = 0
        self._window_start = 0.0
        self._step_start: Optional[float] = None
        self._stack: list[str] = []
        self._segment = 0.0
        self._acc = dict.fromkeys(PHASES, 0.0)
        self._batches = 0
        self._samples: Optional[int] = None
        self._epoch_start = False
        self._last_probe = 0.0
        self._deferred: list[Callable[[], None]] = []

    def defer(self, action: Callable[[], None]) -> None:
        """Run ``action`` when the next phase begins, i.e. outside the hook that closed the step.

        Step boundaries fire inside ``optimizer.step()``; stopping the profiler
        there would cut the step's own profiler range short and orphan its ops.
        """
        self._deferred.append(action)
    # -- phases -----------------------------------------------------------------
    def _start_step(self, now: float) -> None:
        """The first phase or boundary after a reset starts the step (callers check it is unset)."""
        self._step_start = now
        if self.first_activity is None:
            self.first_activity = now
            self._window_start = now

    def _run_deferred(self) -> None:
        actions, self._deferred = self._deferred, []
        started = self.now()
        for action in actions:
            action()
        spent = self.now() - started
        if self._step_start is not None:
            self._step_start += spent  # the probe's own work: not part of the step
        self._last_probe += spent

    # enter/exit run several times in every step: kept to a few attribute reads each.
    def enter(self, phase: str) -> float:
        """Open ``phase`` (nested phases pause the outer one); returns the clock reading."""
        if self._deferred:
            self._run_deferred()
        now = self.now()
        if self._step_start is None:
            self._start_step(now)
        stack = self._stack
        if stack:
            self._acc[stack[-1]] += now - self._segment
        stack.append(phase)
        self._segment = now
        return now

    def exit(self, phase: str) -> float:
        """Close ``phase`` (and anything opened inside it); returns the clock reading."""
        now = self.now()
        stack = self._stack
        if stack and stack[-1] == phase:  # the usual case: the innermost phase closes
            stack.pop()
            self._acc[phase] += now - self._segment
            self._segment = now
            return now
        if phase in stack:  # else opened before the step was reset, or never opened
            self._unwind(now, phase)
        return now

    def _unwind(self, now: float, phase: Optional[str] = None) -> None:
        """Close open phases from the innermost out, through ``phase`` (None: all of them)."""
        stack, acc = self._stack, self._acc
        while stack:
            top = stack.pop()
            acc[top] += now - self._segment
            self._segment = now
            if top == phase:
                break

    def note_batch(self, samples: Optional[int]) -> None:
        self._batches += 1
        if samples is not None:
            self._samples = samples if self._samples is None else self._samples + samples

    def note_epoch_start(self) -> None:
        self._epoch_start = True

    # -- boundaries ------------------------------------------------------------
    def boundary(self, kind: str) -> None:
        """Close the current step at a boundary of ``kind``; may raise ProbeStop."""
        if self.stop_reason is not None and not self.plan.full:
            # The script swallowed our ProbeStop (a bare ``except:``) and went on.
            self._on_stop_swallowed()
            return
        if kind != self.mode and self.mode is not None and _BOUNDARY_RANK[kind] < _BOUNDARY_RANK[self.mode]:
            return  # a weaker boundary than the one steps are counted by: the usual case, made cheap
        now = self.now()
        if self.mode is None or _BOUNDARY_RANK[kind] > _BOUNDARY_RANK[self.mode]:
            switching = self.mode is not None
            self.mode = kind
            if switching:
                # Everything so far was measured with a weaker boundary: count
                # the warm-up again in the stronger one.
                self._window_steps = 0
        elif kind != self.mode:
            return
        if self._step_start is None:
            self._start_step(now)
            return
        self._close_step(now, kind)
        try:
            self._advance_windows(self.now())
        finally:
            end = self.now()
            # Everything from the boundary on (writing the step, changing windows) is the
            # probe's own work: the next step starts after it, and reports it as ``probe``.
            self._last_probe = end - now
            self._reset(end)
        if self.stop_reason is not None and not self.plan.full:
            raise ProbeStop(self.stop_reason)

    def _close_step(self, now: float, kind: str) -> None:
        if self._stack:  # usually empty: the optimizer phase closed before its post-hook
            self._unwind(now)
        duration = now - self._step_start
        acc = self._acc
        measured = (acc["data_wait"] + acc["h2d"] + acc["forward"] + acc["backward"] + acc["optimizer"]
                    + acc["eval"] + acc["debug"])  # zero_grad is part of other
        validation = acc["eval"] > 0.5 * duration
        # Positional, in stepcodec.STEP_FIELDS order: one small tuple per step is the cheapest event to write.
        self._emit_step((
            self.steps_emitted, self._step_start - self.t0, duration, acc["data_wait"], acc["h2d"],
            acc["forward"], acc["backward"], acc["optimizer"], acc["zero_grad"], acc["eval"],
            max(0.0, duration - measured), self._last_probe, self.window, kind, self._batches,
            self._samples, self._epoch_start, validation, acc["debug"],
        ))
        self.steps_emitted += 1
        if not validation:
            self._window_steps += 1

    def _reset(self, now: float) -> None:
        self._step_start = now
        self._segment = now
        self._stack.clear()
        self._acc = dict.fromkeys(PHASES, 0.0)
        self._batches = 0
        self._samples = None
        self._epoch_start = False

    # -- the window plan ----------------------------------------------------------
    def _advance_windows(self, now: float) -> None:
        plan = self.plan
        elapsed = now - self._window_start
        steps = self._window_steps
        if plan.max_seconds is not None and now - self.t0 > plan.max_seconds and not plan.full:
            if self.window != PHASE_AFTER:
                self._request_stop(f"reached --max-seconds ({plan.max_seconds:g} s)")
                return
        if self.window == PHASE_WARMUP:
            if steps >= plan.warmup_steps or (steps >= 2 and elapsed > plan.warmup_max_seconds):
                self._enter(PHASE_STEADY, now)
                self._on_window("steady_start")
        elif self.window == PHASE_STEADY:
            if plan.steps is not None:
                done = steps >= plan.steps
            else:
                done = (steps >= plan.steady_min_steps and elapsed >= plan.steady_seconds) or (
                    steps >= plan.steady_max_steps
                ) or (steps >= 3 and elapsed >= plan.steady_max_seconds)
            if done:
                self._next_after_steady(now)
        elif self.window == PHASE_PROFILED:
            if self._window_done(steps, elapsed, plan.profile_min_steps, plan.profile_seconds, plan.profile_max_steps):
                self._on_window("profiler_stop")
                self._next_after_profiler(now)
        elif self.window == PHASE_CPROFILE:
            if self._window_done(steps, elapsed, plan.cprofile_min_steps, plan.cprofile_seconds, plan.cprofile_max_steps):
                self._on_window("cprofile_stop")
                self._finish_windows(now)

    @staticmethod
    def _window_done(steps: int, elapsed: float, min_steps: int, seconds: float, max_steps: int) -> bool:
        return (steps >= min_steps and elapsed >= seconds) or steps >= max_steps

    def _enter(self, window: str, now: float) -> None:
        self.window = window
        self._window_steps = 0
        self._window_start = now
        self._emit("window", name=window, t=now - self.t0, step=self.steps_emitted)

    def _next_after_steady(self, now: float) -> None:
        if self.plan.profiler:
            self._enter(PHASE_PROFILED, now)
            self._on_window("profiler_start")
        else:
            self._next_after_profiler(now)

    def _next_after_profiler(self, now: float) -> None:
        if self.plan.cprofile:
            self._enter(PHASE_CPROFILE, now)
            self._on_window("cprofile_start")
        else:
            self._finish_windows(now)

    def _finish_windows(self, now: float) -> None:
        self._enter(PHASE_AFTER, now)
        if not self.plan.full:
            self._request_stop("measured enough steps")

    def _request_stop(self, reason: str) -> None:
        self.stop_reason = reason
        self._emit("stop_requested", reason=reason, t=self.now() - self.t0, step=self.steps_emitted)
