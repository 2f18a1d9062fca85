"""The step clock with a fake clock: exclusive phases, boundary kinds and the window plan."""

import pytest

from trainprobe.probe.clock import StepClock
from trainprobe.probe.stepcodec import step_fields
from trainprobe.probe.config import WindowPlan
from trainprobe.probe.runner import ProbeStop


class FakeTime:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t

    def advance(self, dt):
        self.t += dt


def make(plan=None):
    time = FakeTime()
    events = []
    windows = []
    clock = StepClock(plan or WindowPlan(), t0=100.0, emit=lambda kind, **d: events.append((kind, d)),
                      on_window=windows.append, now=time)
    return clock, time, events, windows


def steps(events):
    return [step_fields(d) for kind, d in events if kind == "step"]


def one_step(clock, time, wait=0.01, fwd=0.02, bwd=0.03, opt=0.005, other=0.001, boundary="optimizer"):
    clock.enter("data_wait"); time.advance(wait); clock.exit("data_wait")
    clock.enter("forward"); time.advance(fwd); clock.exit("forward")
    clock.enter("backward"); time.advance(bwd); clock.exit("backward")
    if boundary == "optimizer":
        clock.enter("optimizer"); time.advance(opt); clock.exit("optimizer")
    time.advance(other)
    clock.boundary(boundary)


@pytest.mark.parametrize("inner", ["h2d", "debug"])
def test_phases_are_exclusive_and_add_up(inner):
    """A phase nested in forward is its own part of the step: a copy inside the forward counts as
    copy, anomaly mode's stack capture as debug; neither is forward or other."""
    clock, time, events, _ = make()
    clock.enter("forward")
    time.advance(0.01)
    clock.enter(inner)
    time.advance(0.004)
    clock.exit(inner)
    time.advance(0.006)
    clock.exit("forward")
    time.advance(0.002)
    clock.boundary("optimizer")
    (step,) = steps(events)
    assert step["forward"] == pytest.approx(0.016)
    assert step[inner] == pytest.approx(0.004)
    assert step["other"] == pytest.approx(0.002)
    assert step["duration"] == pytest.approx(0.022)


def test_exit_closes_what_was_opened_inside_and_returns_the_reading():
    clock, time, events, _ = make()
    assert clock.enter("forward") == pytest.approx(100.0)
    clock.enter("h2d")
    time.advance(0.004)
    assert clock.exit("forward") == pytest.approx(100.004)  # h2d left open inside: closed with it
    assert clock.exit("backward") == pytest.approx(100.004)  # never opened: nothing happens
    clock.boundary("optimizer")
    (step,) = steps(events)
    assert step["h2d"] == pytest.approx(0.004) and step["forward"] == pytest.approx(0.0)


def test_stronger_boundary_takes_over():
    clock, time, events, _ = make()
    for _ in range(3):
        one_step(clock, time, boundary="backward")
    assert clock.mode == "backward"
    one_step(clock, time, boundary="optimizer")
    assert clock.mode == "optimizer"
    clock.boundary("backward")  # weaker now: ignored
    assert steps(events)[-1]["boundary"] == "optimizer"


def test_window_plan_runs_in_order_and_stops():
    plan = WindowPlan(warmup_steps=2, steady_min_steps=3, steady_seconds=0.0, profile_min_steps=2,
                      profile_seconds=0.0, cprofile_min_steps=2, cprofile_seconds=0.0, max_seconds=None)
    clock, time, events, windows = make(plan)
    with pytest.raises(ProbeStop):
        for _ in range(50):
            one_step(clock, time)
    assert windows == ["steady_start", "profiler_start", "profiler_stop", "cprofile_start", "cprofile_stop"]
    phases = [s["phase"] for s in steps(events)]
    assert phases == ["warmup"] * 2 + ["steady"] * 3 + ["profiled"] * 2 + ["cprofile"] * 2
    assert clock.stop_reason == "measured enough steps"


def test_full_runs_never_stop():
    plan = WindowPlan(warmup_steps=1, steady_min_steps=1, steady_seconds=0.0, profile_min_steps=1,
                      profile_seconds=0.0, cprofile_min_steps=1, cprofile_seconds=0.0, full=True, max_seconds=None)
    clock, time, events, _ = make(plan)
    for _ in range(20):
        one_step(clock, time)
    assert steps(events)[-1]["phase"] == "after"


def test_max_seconds_stops_at_the_next_step():
    clock, time, events, _ = make(WindowPlan(max_seconds=1.0))
    one_step(clock, time)
    time.advance(2.0)
    with pytest.raises(ProbeStop):
        one_step(clock, time)
    assert "max-seconds" in clock.stop_reason


def test_validation_steps_are_flagged_and_not_counted():
    clock, time, events, _ = make(WindowPlan(warmup_steps=1, steady_min_steps=100, max_seconds=None))
    one_step(clock, time)
    clock.enter("eval"); time.advance(1.0); clock.exit("eval")
    one_step(clock, time)
    assert steps(events)[-1]["validation"] is True
