"""The step clock: splits each training step into phases and runs the window plan.

Hooks call ``enter(phase)``/``exit(phase)`` around data waits, copies,
forwards, backwards and optimizer steps. Time is exclusive: a copy made
inside a forward counts as copy, not forward.

**A step is one iteration of the training loop**: from one training batch
fetch to the next, with every optimizer step inside it. The hooks tell the
clock what happens (``on_fetch``, ``on_forward``, ``on_backward``,
``on_optimizer_step``) and the clock finds where iterations end, without the
user's help. How (``unit``) is decided at the first optimizer step:

* ``fetch``: a DataLoader batch was fetched in the iteration. A step ends at
  the next fetch once an optimizer step has run (gradient accumulation: the
  micro-batches of one update are one step; a GAN: both optimizers' steps are
  in one), or at a fetch from another loader (training to validation and
  back). Loops that never call an optimizer (a hand-written update) end a
  step at the next fetch after a backward.
* ``optimizer``: no DataLoader (batches built by hand). A step ends with the
  optimizer that steps last in each iteration (the second of a GAN's two).
* ``backward``: no DataLoader and no optimizer: a step ends where the next
  training forward starts after a backward.
* ``batch``: before any backward (an inference loop), each fetch ends a step.
* ``loader``: only in a second run of a script whose first run made no step
  (no backward, optimizer step or module forward: an update on bare
  tensors, ``WindowPlan.steps_by_batches``): the next batch of the loader
  that began the step ends it; other loaders' batches in between are part of it.

**Micro-batches.** In a step that accumulates gradients (unit ``fetch`` or
``optimizer``, no optimizer step yet), a micro-batch ends where new work
begins after a backward: the next batch of the step's loader is fetched, or
the next training forward begins (the Hugging Face Trainer fetches all of an
update's batches first; ultralytics' trainer fetches from a loader of its own).
The step's last micro-batch ends with it. Each is emitted as a ``micro``
event (record.MicroBatch), for the run's first ``MICRO_STEPS`` steps that are
split so: they are what a run of a few long updates is judged from
(facts/window.py), and a run long enough never needs them. (Before the first
optimizer step a loop's micro-batches are steps of their own: a fine-tune
whose first update is 16 of them must not spend the budget on those.)

Backward calls inside ``optimizer.step()`` (closure-based optimizers such
as LBFGS, or frameworks that run the whole training step in a closure) are
part of that optimizer step. The closure's own code, outside its forward and
backward, is the loop's code (``other``), not optimizer time.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Callable, Optional

from ..facts.window import FEWEST_STEPS, MIN_STEADY_STEPS, PROFILED_SLOWDOWN
from ..record import (MICRO_PARTS, PHASE_AFTER, PHASE_CENSUS, PHASE_CPROFILE, PHASE_PROFILED, PHASE_STEADY,
                      PHASE_WARMUP, TIME_LIMIT_REASON)
from ..vocabulary import INNER_PHASE_NAMES, TIMED_PHASE_NAMES
from .config import WindowPlan
from .stop import ProbeStop

__all__ = ["PHASES", "PhaseRanges", "StepClock", "MICRO_STEPS", "MICRO_CAP"]

# The phases hooks time: the step's own (all but ``other``, the rest of the step, which the clock
# computes from them) and those timed inside ``other`` (zero_grad). ``debug`` is anomaly mode's stack
# capture, nested in the forward it slows down. ``closure`` is the code of a closure passed to
# optimizer.step(): timed apart from the optimizer, it ends up in ``other`` (no Step field holds it).
PHASES = TIMED_PHASE_NAMES + INNER_PHASE_NAMES + ("closure",)
# Provisional units (before the first optimizer step) give way to the final ones.
_PROVISIONAL = ("batch", "backward")
# Micro-batches are recorded in this many first steps (a run with more is judged by its steps), and at
# most this many in all (a bound on the record's size).
MICRO_STEPS = 16  # split steps, not steps
MICRO_CAP = 2048
# A micro-batch's phases as the clock times them, in record.MicroBatch's field order: its duration before
# them and its other part (the rest, computed) after them.
MICRO_PHASES = tuple(p for p in MICRO_PARTS if p not in ("duration", "other"))


class PhaseRanges:
    """The step's phases as ``trainprobe::<phase>`` ranges in torch.profiler's trace, while it runs,
    so that each op can be attributed to the phase it ran in (ops outside every range ran in the
    loop's own code), and each step as a ``ProfilerStep#N`` range around them, as prof.step()
    marks steps: the exported trace is a standard one that `trainprobe trace` (or any trace tool)
    splits into the same steps. Only ranges opened while it is on are closed by it.

    The model's direct children get ``trainprobe::module::<attribute>`` ranges around their forward
    (the instrumentation's module hooks open and close them), so that the trace's summarizer can put
    each op to the module it ran in, and each backward op, through its autograd sequence number, to
    the module whose forward made it. They are kept apart from the phases: an exception inside a
    child's forward must not leave a phase open."""

    PREFIX = "trainprobe::"
    MODULE = "trainprobe::module::"
    STEP = "ProfilerStep#"

    def __init__(self) -> None:
        from torch.autograd.profiler import record_function

        self._record_function = record_function
        self._open: list[tuple[str, object]] = []
        self._modules: list[tuple[str, object]] = []
        self._step: Optional[object] = None

    def begin_step(self, index: int) -> None:
        self.end_step()
        context = self._record_function(f"{self.STEP}{index}")
        context.__enter__()
        self._step = context

    def end_step(self) -> None:
        if self._step is not None:
            step, self._step = self._step, None
            step.__exit__(None, None, None)  # type: ignore[attr-defined]

    def push(self, phase: str) -> None:
        self._enter(self._open, phase, self.PREFIX + phase)

    def pop(self, phase: str) -> None:
        self._leave(self._open, phase)

    def push_module(self, name: str) -> None:
        self._enter(self._modules, name, self.MODULE + name)

    def pop_module(self, name: str) -> None:
        self._leave(self._modules, name)

    def _enter(self, stack: list, name: str, label: str) -> None:
        context = self._record_function(label)
        context.__enter__()
        stack.append((name, context))

    @staticmethod
    def _leave(stack: list, name: str) -> None:
        if stack and stack[-1][0] == name:
            stack.pop()[1].__exit__(None, None, None)

    def close(self) -> None:
        while self._modules:
            self._modules.pop()[1].__exit__(None, None, None)  # type: ignore[attr-defined]
        while self._open:
            self._open.pop()[1].__exit__(None, None, None)  # type: ignore[attr-defined]
        self.end_step()


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
        drain: Optional[Callable[[], None]] = None,
    ) -> None:
        self.plan = plan
        # Waits for the device's queued work (torch.cuda.synchronize on a GPU run). A GPU runs behind
        # the host: after a sync the host queues steps for free until the launch queue fills, so host
        # step times over a window undercount it (fp32 MLP on an H200: a 5.8 ms mean for 8.1 ms steps,
        # "109% of the fp32 peak"). Draining at the step that closes a window puts all of the window's
        # device work inside it; steps in between are untouched, and the script's overlap with them.
        self.drain = drain
        self.t0 = t0
        self._emit = emit
        # A step's values, in stepcodec.STEP_FIELDS order; the sink has a cheaper path for them.
        self._emit_step = emit_step or (lambda values: emit("step", v=values))
        self._on_window = on_window
        self._on_stop_swallowed = on_stop_swallowed
        self.now = now
        self.unit: Optional[str] = None  # how steps end: fetch | optimizer | backward | batch | loader (module docs)
        # While torch.profiler runs: the phases as named ranges in its trace (see PhaseRanges).
        self.ranges: Optional["PhaseRanges"] = None
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
        self._wait_cpu = 0.0  # the loop thread's CPU seconds inside data_wait
        self._receive = 0.0  # its seconds receiving batches from workers, inside data_wait
        self._batches = 0
        self._samples: Optional[int] = None
        self._input_samples: Optional[int] = None  # the largest batch a training forward of the step took
        self._epoch_start = False
        self._last_probe = 0.0
        self._deferred: list[Callable[[], None]] = []
        # What the current step holds, to tell where the iteration ends.
        self._updates = 0  # optimizer steps
        self._backwards = 0  # backward calls outside optimizer steps
        self._forwards = 0  # top-level forwards
        self._open_forwards = 0  # top-level forwards since the last backward or update
        self._loader: object = None  # the loader whose batch began the step
        self._fetches = 0  # DataLoader batches fetched so far
        self._fetches_at_step: dict[int, int] = {}  # id(optimizer) -> fetches when it last stepped
        self._epoch_pending = False  # a DataLoader iterator was made: the next step begins an epoch
        self._lr: Optional[float] = None  # the learning rate the step's first optimizer step used
        # The step's micro-batches (module docs): where the open one began, the phases' totals then, whether
        # a backward has run in it, and how many of the step's are closed.
        self._micro_start: Optional[float] = None
        self._micro_acc: dict[str, float] = dict.fromkeys(PHASES, 0.0)
        self._micro_backward = False
        self._micros = 0
        # When the open step's backwards ended: a first step's micro-batches, before the clock knows its unit
        # (and so records none), give the pace (_close_step) and say the steps are micro-batched.
        self._backward_ends: list[float] = []
        self.micros_emitted = 0
        self.split_steps = 0  # closed steps that were split into micro-batches
        self._micro_on = True  # this step's micro-batches are recorded (the first MICRO_STEPS, up to MICRO_CAP)
        # What the run has shown so far.
        self.optimizer_seen = False
        self.fetch_seen = False
        self.forward_seen = False  # a top-level nn.Module forward (a hook saw it)
        self._optimizers: list[object] = []  # distinct optimizers, in the order they first stepped
        self._closer: object = None  # unit optimizer: the optimizer whose step ends an iteration
        self._recent: deque[float] = deque(maxlen=5)  # the last steps' durations: the pace
        self._paced_steps = 0  # training steps seen for the pace (the first one is left out of it)
        self.census_steps = plan.census_steps  # the counting steps this run gets (fewer when steps are slow)
        # Short epochs (_place_profiler): where the loaders started new passes, and the profiled window's place.
        self._boundaries: deque[int] = deque(maxlen=8)  # steps that began a loader's pass (an epoch, validation)
        self._aligning = False  # a window waits for the next epoch's start (the profiler's, then cProfile's)
        self._aligning_for = PHASE_PROFILED  # the window that waits
        self._passed_boundary = False  # an epoch start has ended since the wait began
        self._waited = 0
        self._caps: dict[str, int] = {}  # window placed inside an epoch -> its most steps: the epoch's, less its ends
        self.last_samples: Optional[int] = None  # the step just closed: its batch and duration
        self.last_duration = 0.0


    @property
    def current_phase(self) -> Optional[str]:
        """The step phase the loop is in now (the innermost), or None between phases."""
        return self._stack[-1] if self._stack else None
    def defer(self, action: Callable[[], None]) -> None:
        """Run ``action`` when the next phase begins, i.e. outside the hook that closed the step.

        Step boundaries fire inside ``optimizer.step()``; stopping the profiler
        there would cut the step's own profiler range short and orphan its ops.
        """
        self._deferred.append(action)
    # -- phases -----------------------------------------------------------------
    def _start_step(self, now: float) -> None:
        """The first phase or boundary after a reset starts the step (callers check it is unset)."""
        self._step_start = self._micro_start = now
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
        if self._micro_start is not None:
            self._micro_start += spent
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
        if self.ranges is not None:
            self.ranges.push(phase)
        return now

    def exit(self, phase: str) -> float:
        """Close ``phase`` (and anything opened inside it); returns the clock reading."""
        now = self.now()
        stack = self._stack
        if stack and stack[-1] == phase:  # the usual case: the innermost phase closes
            stack.pop()
            self._acc[phase] += now - self._segment
            self._segment = now
            if self.ranges is not None:
                self.ranges.pop(phase)
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
            if self.ranges is not None:
                self.ranges.pop(top)
            if top == phase:
                break

    def note_wait(self, cpu: float, receive: float) -> None:
        """What the loop thread did while it waited for a batch: its CPU seconds (making the batch,
        or taking it from a worker) and its seconds receiving the batch from a worker."""
        self._wait_cpu += cpu
        self._receive += receive

    def note_batch(self, samples: Optional[int]) -> None:
        self._batches += 1
        if samples is not None:
            self._samples = samples if self._samples is None else self._samples + samples

    def note_forward_batch(self, samples: int) -> None:
        """A training forward took a batch of ``samples`` (its input's first dimension). A step whose batches
        are made by hand, with no DataLoader, counts the largest such batch as its samples: an RL loop's
        update on its minibatch, not its acting forwards on one observation."""
        if self._input_samples is None or samples > self._input_samples:
            self._input_samples = samples

    def note_epoch_start(self) -> None:
        """A DataLoader iterator was made: the step that its first batch begins starts an epoch."""
        self._epoch_pending = True

    # -- what happened: the hooks report, the clock decides where a step ends ---------------
    def note_lr(self, lr: Optional[float]) -> None:
        if self._lr is None:
            self._lr = lr

    def auxiliary_fetch(self, loader: object, inside_forward: bool = False) -> bool:
        """A batch from ``loader`` now is not the step's own: it feeds the step's work, as the noise of
        an augmentation that reads a loader of its own (SpeechBrain's AddNoise) does. Either a module's
        forward is fetching it (``inside_forward``), or the step began with a batch of a loader that
        trains (its batches fed a backward), a forward has begun since the last backward, and this is
        another loader."""
        if loader is self._loader or self._updates:
            return False
        return inside_forward or (bool(getattr(self._loader, "used_in_training", False))
                                  and self._open_forwards > 0)

    @property
    def forward_begun(self) -> bool:
        """A forward of the step has begun and no backward has followed it yet."""
        return self._open_forwards > 0

    def on_fetch(self, loader: object, inside_forward: bool = False) -> bool:
        """A DataLoader batch is about to be fetched; may end the step (and raise ProbeStop).
        ``inside_forward``: a module's forward fetches it. Returns whether the batch is auxiliary
        (see auxiliary_fetch), judged before the step it may end."""
        auxiliary = self.auxiliary_fetch(loader, inside_forward)
        self.fetch_seen = True
        self._fetches += 1
        busy = self._forwards or self._backwards or self._updates  # more than fetching so far
        if self._step_start is not None and busy:
            unit = self.unit
            if unit == "fetch":
                # Another loader after some work: training to validation, or back. (Two loaders
                # read together, zip(a, b), fetch before any work and do not end a step; nor does a
                # loader read after a training forward began and before its backward: an augmentation
                # drawing noise from a loader of its own inside the step, as SpeechBrain's AddNoise does.)
                switch = loader is not self._loader and not auxiliary
                if self._updates or switch or (self._backwards and not self.optimizer_seen):
                    self._end_step("fetch")
            elif unit is None or unit == "batch":
                if self._backwards and not self.optimizer_seen:  # no optimizer object: a hand-written update
                    self._decide("fetch")
                    self._end_step("fetch")
                elif not self._backwards and not auxiliary:  # forwards without a backward: an inference loop
                    self.unit = "batch"
                    self._end_step("batch")
        elif self._step_start is not None and self.plan.steps_by_batches and loader is self._loader and \
                self.unit in (None, "loader"):
            # Nothing but fetches so far (math on bare tensors the hooks cannot see): a second run of a
            # script that made no step takes the next batch of the step's first loader as the boundary.
            self.unit = "loader"
            self._end_step("loader")
        if self._micro_backward and loader is self._loader and not auxiliary:
            self._end_micro()  # the step goes on: its next micro-batch begins with this batch
        if not self._batches:
            self._loader = loader  # the loader whose batch begins this step
        if self._epoch_pending:
            self._epoch_pending = False
            self._epoch_start = True
        return auxiliary

    def on_forward(self, training: bool) -> None:
        """A top-level forward starts: with no optimizer and no DataLoader, an iteration begins at
        a training forward once the last one ran a backward."""
        self.forward_seen = True
        if (training and self._backwards and not self.optimizer_seen and not self.fetch_seen
                and self.unit in (None, "backward")):
            self.unit = "backward"
            self._end_step("backward")
        elif training and self._micro_backward:
            self._end_micro()  # batches fetched ahead (the Hugging Face Trainer): the forward begins the next one
        self._forwards += 1
        self._open_forwards += 1

    def on_backward(self) -> None:
        if "optimizer" in self._stack:  # a closure's backward is part of its optimizer step
            return
        self._backwards += 1
        if not self._updates:  # gradients accumulated for one update (a GAN's critic steps are not)
            self._backward_ends.append(self.now())
        self._open_forwards = 0
        self._micro_backward = self._micro_on and self.unit in ("fetch", "optimizer") and not self._updates
        if not (self.optimizer_seen or self.fetch_seen or self.forward_seen) and self.unit in (None, "backward"):
            # No module, no optimizer, no DataLoader (math on bare tensors): nothing marks where an
            # iteration begins, so each backward ends one.
            self.unit = "backward"
            self._end_step("backward")

    def _end_micro(self, now: Optional[float] = None) -> None:
        """Close the step's open micro-batch (module docs) and begin the next one; ``now``: the step's end,
        where the last one closes."""
        closing = now is not None
        if now is None:
            now = self.now()
        stack, acc = self._stack, self._acc
        if stack:  # a phase still open: count its time so far where it belongs
            acc[stack[-1]] += now - self._segment
            self._segment = now
        before = self._micro_acc
        parts = [acc[p] - before[p] for p in MICRO_PHASES]
        start = self._micro_start if self._micro_start is not None else now
        duration = now - start
        timed = sum(acc[p] - before[p] for p in TIMED_PHASE_NAMES)  # zero_grad is part of other, as in a step
        self._emit("micro", v=[self.steps_emitted, start - self.t0, duration, *parts, max(0.0, duration - timed)])
        self.micros_emitted += 1
        self._micros += 1
        self._micro_acc = dict(acc)
        self._micro_backward = False
        if not closing:  # writing the event is the probe's own work, in no micro-batch and no step
            spent = self.now() - now
            self._step_start += spent  # type: ignore[operator]  # a step is open: its micro-batch just ended
            self._last_probe += spent
            now = self._segment = now + spent
        self._micro_start = now

    def on_optimizer_step(self, optimizer: object) -> None:
        """An optimizer step ended; may end the step (and raise ProbeStop)."""
        self._updates += 1
        self._open_forwards = 0
        self._micro_backward = False  # what follows an update is no micro-batch of it (a GAN's second half)
        first = not self.optimizer_seen
        self.optimizer_seen = True
        repeated = optimizer in self._optimizers
        if not repeated:
            self._optimizers.append(optimizer)
        if self.unit is None or self.unit in _PROVISIONAL:
            self._decide("fetch" if self._batches else "optimizer")
            self._closer = optimizer
        elif self.unit == "fetch" and repeated and self._fetches_at_step.get(id(optimizer)) == self._fetches:
            # The same optimizer stepped again with no batch fetched in between: this loop's
            # iterations do not fetch (batches made ahead of time). Its optimizers delimit them.
            self._decide("optimizer")
            self._closer = optimizer
        elif self.unit == "optimizer" and not repeated and not first:
            self._closer = optimizer  # a second optimizer in the iteration (a GAN): it steps last
        self._fetches_at_step[id(optimizer)] = self._fetches
        if self.unit == "optimizer" and optimizer is self._closer:
            self._end_step("optimizer")

    def _decide(self, unit: str) -> None:
        if self.unit != unit:
            if self.unit is not None:
                # Steps so far were cut another way (before the first optimizer step): count the
                # warm-up again in this unit.
                self._window_steps = 0
            self.unit = unit

    def _end_step(self, kind: str) -> None:
        if self.stop_reason is not None and not self.plan.full:
            # The script swallowed our ProbeStop (a bare ``except:``) and went on.
            self._on_stop_swallowed()
            return
        now = self.now()
        if self._step_start is None:
            self._start_step(now)
            return
        if self.drain is not None and self._closes_window(now):
            self.drain()
            now = self.now()
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
        if self._stack:  # a boundary inside a phase (a fetch in a forward): close it there
            self._unwind(now)
        if self._micros:  # the step was split into micro-batches: its last one ends with it
            self._end_micro(now)
            self.split_steps += 1
        duration = now - self._step_start
        acc = self._acc
        measured = sum(acc[p] for p in TIMED_PHASE_NAMES)  # zero_grad and a closure's code are part of other
        validation = acc["eval"] > 0.5 * duration
        if self._samples is None and not self._batches:
            self._samples = self._input_samples  # no DataLoader batch in the step: the model's input tells
        if self.ranges is not None:
            self.ranges.end_step()
        # Positional, in stepcodec.STEP_FIELDS order: one small tuple per step is the cheapest event to write.
        self._emit_step((
            self.steps_emitted, self._step_start - self.t0, duration, acc["data_wait"], acc["h2d"],
            acc["forward"], acc["backward"], acc["optimizer"], acc["zero_grad"], acc["eval"],
            max(0.0, duration - measured), self._last_probe, self.window, kind, self._batches,
            self._samples, self._epoch_start, validation, acc["debug"], self._updates, self._lr,
            self._wait_cpu, self._receive,
        ))
        self.steps_emitted += 1
        self.last_samples, self.last_duration = self._samples, duration
        if not validation:
            self._window_steps += 1
            # The run's first step carries one-time start-up (CUDA context, cuBLAS and cuDNN set-up,
            # lazy modules): seconds on a GPU before steps of milliseconds. As the pace it would end
            # the warm-up at once and skip the counting step on every GPU run.
            if self._paced_steps:
                self._recent.append(duration)
            elif len(self._backward_ends) > FEWEST_STEPS:
                # A first step of many micro-batches (a fine-tune accumulating 16 of 4.5 s): its start-up lands in
                # its first micro-batch, and the time between its later backwards gives the pace. Without it a
                # 74 s first step set no pace, the warm-up took the second step as well, and --max-seconds
                # stopped the run before any window (StarCoder's fine-tune, test set 20).
                ends = self._backward_ends
                gaps = sorted(b - a for a, b in zip(ends, ends[1:]))
                self._recent.append(gaps[len(gaps) // 2] * len(ends))
            self._paced_steps += 1

    def _reset(self, now: float) -> None:
        if self.ranges is not None and self.window == PHASE_PROFILED:
            self.ranges.begin_step(self.steps_emitted)  # the next step, as the trace will number it
        self._step_start = self._micro_start = now
        self._backward_ends = []
        self._segment = now
        self._stack.clear()
        self._acc = dict.fromkeys(PHASES, 0.0)
        self._micro_acc = self._acc.copy()
        self._micro_backward = False
        self._micros = 0
        self._micro_on = self.split_steps < MICRO_STEPS and self.micros_emitted < MICRO_CAP
        self._wait_cpu = self._receive = 0.0
        self._batches = 0
        self._samples = self._input_samples = None
        self._epoch_start = False
        self._updates = self._backwards = self._forwards = self._open_forwards = 0
        self._lr = None

    # -- the window plan ----------------------------------------------------------
    def _advance_windows(self, now: float) -> None:
        plan = self.plan
        elapsed = now - self._window_start
        steps = self._window_steps
        if self._epoch_start:
            self._boundaries.append(self.steps_emitted - 1)
        if plan.max_seconds is not None and now - self.t0 > plan.max_seconds and not plan.full:
            if self.window != PHASE_AFTER:
                self._request_stop(f"{TIME_LIMIT_REASON} ({plan.max_seconds:g} s)")
                return
        if self.window == PHASE_WARMUP:
            if steps >= plan.warmup_steps or (steps >= 2 and elapsed > plan.warmup_max_seconds) or (
                    steps >= 1 and self._short_of_time(now, MIN_STEADY_STEPS + self._profiling_steps())):
                self._next_after_warmup(now)
        elif self.window == PHASE_CENSUS:
            self._on_window("census_step")
            if steps >= self.census_steps:
                self._on_window("census_stop")
                self._begin_steady(now)
        elif self.window == PHASE_STEADY:
            if self._aligning:
                self._await_epoch_start(now)
            elif self._steady_done(steps, elapsed, now):
                self._next_after_steady(now)
        elif self.window == PHASE_PROFILED:
            if self._profiled_done(steps, elapsed):
                self._on_window("profiler_stop")
                self._next_after_profiler(now)
        elif self.window == PHASE_AFTER and self._aligning:
            self._await_epoch_start(now)  # the cProfile window waits, outside every window
        elif self.window == PHASE_CPROFILE:
            most = self._most(PHASE_CPROFILE, plan.cprofile_max_steps)
            if self._window_done(steps, elapsed, plan.cprofile_min_steps, plan.cprofile_seconds, most):
                self._on_window("cprofile_stop")
                self._finish_windows(now)

    def _steady_done(self, steps: int, elapsed: float, now: float) -> bool:
        plan = self.plan
        if plan.steps is not None:
            done = steps >= plan.steps
        else:
            done = (steps >= plan.steady_min_steps and elapsed >= plan.steady_seconds) or (
                steps >= plan.steady_max_steps
            ) or (steps >= MIN_STEADY_STEPS and elapsed >= plan.steady_max_seconds)
        # Slow steps: end the window while --max-seconds still holds the profiling windows.
        return done or (steps >= MIN_STEADY_STEPS and self._short_of_time(now, self._profiling_steps()))

    def _closes_window(self, now: float) -> bool:
        """Whether the step ending at ``now`` will close the measured (steady) or profiled window: the
        step to drain the device's queue in. (The warm-up needs none: the counting step syncs, and a
        warm-up that ends by the time left cannot be foreseen; its last step is not measured.)"""
        steps, elapsed = self._window_steps + 1, now - self._window_start
        if self.window == PHASE_STEADY and self._aligning:
            return self._passed_boundary and not self._epoch_start  # this step lets the profiler start
        if self.window == PHASE_STEADY:
            return self._steady_done(steps, elapsed, now)
        if self.window == PHASE_PROFILED:
            return self._profiled_done(steps, elapsed)
        return False

    def _profiled_done(self, steps: int, elapsed: float) -> bool:
        plan = self.plan
        most = self._most(PHASE_PROFILED, plan.profile_max_steps)
        return self._window_done(steps, elapsed, plan.profile_min_steps, plan.profile_seconds, most)

    def _epoch_length(self) -> Optional[int]:
        """Steps from one loader pass's start to the next, typically (the validation step and the next
        epoch's first step, flagged together, are one boundary); None before two boundaries."""
        marks = list(self._boundaries)
        gaps = sorted(b - a for a, b in zip(marks, marks[1:]) if b - a > 1)
        return gaps[len(gaps) // 2] if gaps else None

    def _place_profiler(self) -> bool:
        """Whether the profiled window waits for the next epoch's start (and is capped inside the epoch).

        Epochs shorter than the window would put an epoch's end in it: a validation pass, a predict over
        the training set, a new pass's first batch, steps that are no steady step. TabNet's 11-step epochs
        (test set 3) left 3 of its 4 profiled steps such steps, 10 times the steady step, and the op
        profile described them instead of the training step."""
        return self._place(PHASE_PROFILED, self.plan.profile_min_steps, self.plan.profile_max_steps)

    def _place_cprofile(self) -> bool:
        """Whether the cProfile window waits for the next epoch's start too: the profiled window, placed,
        ends inside an epoch, so a cProfile window started at once would hold that epoch's end (the
        validation pass's Python, the loader's restart) and describe it as the loop's own code."""
        return PHASE_PROFILED in self._caps and \
            self._place(PHASE_CPROFILE, self.plan.cprofile_min_steps, self.plan.cprofile_max_steps)

    def _place(self, window: str, min_steps: int, max_steps: int) -> bool:
        """Make ``window`` wait for the next epoch's start, capped at the epoch's length less its two ends;
        False (nothing changed) when the epochs hold the whole window or their length is not known yet."""
        length = self._epoch_length()
        if length is None or length > max_steps + 1 or self.plan.steps is not None:
            return False  # (a plan of counted steps, fitted to a short run's end, has no steps to wait with)
        self._caps[window] = max(min_steps, length - 2)
        self._aligning, self._aligning_for, self._passed_boundary, self._waited = True, window, False, 0
        return True

    def _most(self, window: str, max_steps: int) -> int:
        return min(max_steps, self._caps.get(window, max_steps))

    def _await_epoch_start(self, now: float) -> None:
        """Start the waiting window (the profiler's or cProfile's) on the step after an epoch's first
        steps; give up after one epoch's wait or when --max-seconds would not hold the windows any more."""
        self._waited += 1
        if self._epoch_start:
            self._passed_boundary = True
            return
        length = self._epoch_length() or 0
        profiler = self._aligning_for == PHASE_PROFILED
        steps = self._profiling_steps() if profiler else self.plan.cprofile_min_steps
        if self._passed_boundary or self._waited > length + 2 or self._short_of_time(now, steps):
            self._aligning = False
            self._enter(self._aligning_for, now)
            self._on_window("profiler_start" if profiler else "cprofile_start")

    def _profiling_steps(self) -> int:
        plan = self.plan
        return (plan.profile_min_steps if plan.profiler else 0) + (plan.cprofile_min_steps if plan.cprofile else 0)

    def _short_of_time(self, now: float, steps: int) -> bool:
        """Whether the time --max-seconds leaves will not hold ``steps`` more steps at the recent pace
        (profiled steps run a little slower)."""
        plan = self.plan
        if plan.max_seconds is None or plan.full or not self._recent or not steps:
            return False
        pace = sorted(self._recent)[len(self._recent) // 2]
        return plan.max_seconds - (now - self.t0) < (steps + 1) * pace * PROFILED_SLOWDOWN

    @staticmethod
    def _window_done(steps: int, elapsed: float, min_steps: int, seconds: float, max_steps: int) -> bool:
        return (steps >= min_steps and elapsed >= seconds) or steps >= max_steps

    def _enter(self, window: str, now: float, **extra: str) -> None:
        self.window = window
        self._window_steps = 0
        self._window_start = now
        self._emit("window", name=window, t=now - self.t0, step=self.steps_emitted, **extra)

    def _next_after_warmup(self, now: float) -> None:
        """The counting step(s) when the plan has them and the time left holds them beside the
        measured and profiled windows; else the steady window at once. Slow steps of micro-batches that leave
        no time for a steady window and a profiled one get the profiled one first: each such step is judged
        by its micro-batches (facts/window.py), and only a profiled one shows the op mix (refit.micro_plan's
        order, in a first run)."""
        plan = self.plan
        if plan.profiler and plan.steps is None and len(self._backward_ends) > FEWEST_STEPS \
                and self._short_of_time(now, MIN_STEADY_STEPS + self._profiling_steps()):
            self._on_window("census_skipped")
            self._enter(PHASE_PROFILED, now)
            self._on_window("profiler_start")
            return
        if plan.census and plan.census_steps > 0:
            # Slow steps: one counted step (no leak check) rather than none, when two do not fit.
            for count in sorted({plan.census_steps, 1}, reverse=True):
                if not self._short_of_time(now, count + MIN_STEADY_STEPS + self._profiling_steps()):
                    self.census_steps = count
                    self._enter(PHASE_CENSUS, now)
                    self._on_window("census_start")
                    return
            self._on_window("census_skipped")
        self._begin_steady(now)

    def _begin_steady(self, now: float) -> None:
        """The steady window, or, in a plan of no steady steps (refit.micro_plan: two steps, the second
        profiled and judged by its micro-batches), the windows after it at once."""
        if self.plan.steps == 0:
            self._next_after_steady(now)
            return
        self._enter(PHASE_STEADY, now)
        self._on_window("steady_start")

    def _next_after_steady(self, now: float) -> None:
        if self.plan.profiler and self._place_profiler():
            return  # the steady window goes on until the next epoch starts
        if self.plan.profiler:
            self._enter(PHASE_PROFILED, now)
            self._on_window("profiler_start")
        else:
            self._next_after_profiler(now)

    def _next_after_profiler(self, now: float) -> None:
        if self.plan.cprofile and self._place_cprofile():
            self._enter(PHASE_AFTER, now, waits_for=PHASE_CPROFILE)  # until the next epoch: outside every window
        elif self.plan.cprofile:
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
