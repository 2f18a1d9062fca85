"""The step clock with a fake clock: exclusive phases, where iterations end, and the window plan.

A step is one iteration of the training loop: from one training batch fetch to the next, with every
optimizer step inside it. Each loop shape below is driven through the same calls the probe's hooks
make, in the order a real loop makes them.
"""

from dataclasses import replace

import pytest

from trainprobe.probe.clock import StepClock
from trainprobe.probe.config import WindowPlan
from trainprobe.probe.runner import ProbeStop
from trainprobe.probe.stepcodec import step_fields


class FakeTime:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t

    def advance(self, dt):
        self.t += dt


NO_STOP = WindowPlan(warmup_steps=2, steady_min_steps=1000, steady_max_steps=10**6, max_seconds=None)


def make(plan=None):
    time = FakeTime()
    events, windows = [], []
    clock = StepClock(plan or NO_STOP, t0=100.0, emit=lambda kind, **d: events.append((kind, d)),
                      on_window=windows.append, now=time)
    return clock, time, events, windows


def steps(events):
    return [step_fields(d) for kind, d in events if kind == "step"]


class Loop:
    """The calls a training loop's hooks make, with fake durations."""

    def __init__(self, clock, time):
        self.clock, self.time = clock, time

    def phase(self, name, dt):
        self.clock.enter(name)
        self.time.advance(dt)
        self.clock.exit(name)

    def fetch(self, loader="train", wait=0.01, samples=8):
        self.clock.on_fetch(loader)
        self.phase("data_wait", wait)
        self.clock.note_batch(samples)

    def forward(self, dt=0.02, training=True):
        self.clock.on_forward(training)
        self.phase("forward" if training else "eval", dt)

    def backward(self, dt=0.03):
        self.phase("backward", dt)
        self.clock.on_backward()

    def step(self, optimizer="opt", dt=0.005, lr=0.1):
        self.clock.note_lr(lr)
        self.phase("optimizer", dt)
        self.clock.on_optimizer_step(optimizer)

    def other(self, dt=0.001):
        self.time.advance(dt)

    def train_iteration(self, loader="train", **kw):
        self.fetch(loader)
        self.forward()
        self.backward()
        self.step(**kw)
        self.other()


def test_phases_are_exclusive_and_add_up():
    """A phase nested in forward is its own part of the step: a copy inside the forward is copy."""
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    loop.fetch()
    clock.enter("forward"); time.advance(0.01)
    clock.enter("h2d"); time.advance(0.004); clock.exit("h2d")
    time.advance(0.006); clock.exit("forward")
    loop.backward()
    loop.step()
    time.advance(0.002)
    loop.fetch()
    (step,) = steps(events)
    assert step["forward"] == pytest.approx(0.016) and step["h2d"] == pytest.approx(0.004)
    assert step["duration"] == pytest.approx(0.01 + 0.016 + 0.004 + 0.03 + 0.005 + 0.002)
    assert step["other"] == pytest.approx(0.002)


def test_exit_closes_what_was_opened_inside_and_returns_the_reading():
    clock, time, events, _ = make()
    assert clock.enter("forward") == pytest.approx(100.0)
    clock.enter("h2d")
    time.advance(0.004)
    assert clock.exit("forward") == pytest.approx(100.004)  # h2d left open inside: closed with it
    assert clock.exit("backward") == pytest.approx(100.004)  # never opened: nothing happens


def test_a_plain_loop_is_one_step_per_batch_from_its_very_first_iteration():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(5):
        loop.train_iteration()
    loop.fetch()
    got = steps(events)
    assert len(got) == 5  # the first iteration is one step, not split at its backward
    assert all(s["boundary"] == "fetch" and s["batches"] == 1 and s["samples"] == 8 for s in got)
    assert all(s["updates"] == 1 and s["lr"] == pytest.approx(0.1) for s in got)
    assert all(s["duration"] == pytest.approx(0.066) for s in got)
    assert clock.unit == "fetch"


def test_a_gan_iteration_with_two_optimizers_is_one_step():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(4):
        loop.fetch()
        loop.forward()  # generator makes fakes
        loop.forward(); loop.backward(); loop.step("discriminator")
        loop.forward(); loop.backward(); loop.step("generator")
    loop.fetch()
    got = steps(events)
    assert len(got) == 4 and clock.unit == "fetch"
    assert [s["updates"] for s in got] == [2, 2, 2, 2] and [s["batches"] for s in got] == [1, 1, 1, 1]


def test_a_gan_without_a_dataloader_ends_iterations_with_its_last_optimizer():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(4):
        loop.forward(); loop.backward(); loop.step("discriminator")
        loop.forward(); loop.backward(); loop.step("generator")
    got = steps(events)
    assert clock.unit == "optimizer"
    # The first iteration teaches the clock that a second optimizer exists; after it, one step each.
    assert [s["updates"] for s in got[1:]] == [1, 2, 2, 2]


def test_gradient_accumulation_puts_the_micro_batches_of_one_update_in_one_step():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(3):
        for micro in range(4):
            loop.fetch(); loop.forward(); loop.backward()
        loop.step()
    loop.fetch()
    got = steps(events)
    # Before the first optimizer step the clock cannot know the micro-batches belong together.
    assert [s["batches"] for s in got[-2:]] == [4, 4] and [s["updates"] for s in got[-2:]] == [1, 1]
    assert got[-1]["samples"] == 32


def test_a_closure_optimizer_is_one_step_with_its_closure_code_in_other():
    """LBFGS (or a framework running the training step in a closure): forward and backward run inside
    optimizer.step(); the closure's own code is the loop's code, not optimizer time."""
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(3):
        loop.fetch()
        clock.note_lr(1.0)
        clock.enter("optimizer")
        time.advance(0.002)  # the optimizer's own work
        for _ in range(3):  # LBFGS evaluates the closure several times
            clock.enter("closure")
            time.advance(0.004)  # the closure's own Python (zero_grad, logging, framework hooks)
            loop.forward(); loop.backward()
            clock.exit("closure")
        clock.exit("optimizer")
        clock.on_optimizer_step("lbfgs")
    loop.fetch()
    got = steps(events)
    assert len(got) == 3 and all(s["updates"] == 1 for s in got)
    step = got[-1]
    assert step["optimizer"] == pytest.approx(0.002)
    assert step["forward"] == pytest.approx(0.06) and step["backward"] == pytest.approx(0.09)
    assert step["other"] == pytest.approx(0.012)  # the closure's code


def test_a_hand_written_update_with_a_dataloader_ends_at_the_next_batch():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(4):
        loop.fetch(); loop.forward(); loop.backward(); loop.other(0.004)  # p -= lr * p.grad
    loop.fetch()
    got = steps(events)
    assert len(got) == 4 and all(s["boundary"] == "fetch" and s["updates"] == 0 for s in got)
    assert got[-1]["other"] == pytest.approx(0.004)


def test_no_dataloader_and_no_optimizer_ends_an_iteration_where_the_next_forward_starts():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(4):
        loop.other(0.003)  # make the batch by hand
        loop.forward(); loop.backward(); loop.other(0.004)
        loop.forward(training=False)  # an evaluation each iteration does not end it
    got = steps(events)
    assert clock.unit == "backward"
    assert len(got) == 3 and all(s["boundary"] == "backward" for s in got)
    assert got[-1]["forward"] == pytest.approx(0.02) and got[-1]["eval"] == pytest.approx(0.02)


def test_an_inference_loop_is_a_step_per_batch():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(3):
        loop.fetch(); loop.forward(training=False)
    loop.fetch()
    assert [s["boundary"] for s in steps(events)] == ["batch"] * 3


def test_bare_batches_are_steps_only_in_a_second_run_that_asks_for_them():
    """A hand-written update on bare tensors (omarsar's logistic regression, test set 7): each iteration
    fetches a training and a validation batch, and nothing else the hooks see marks it. A first run
    makes no step (a data-statistics pass before training must not use up the windows); the second run
    (WindowPlan.steps_by_batches) ends a step at the next batch of the loader that began it."""
    def iterate(loop):
        for _ in range(4):
            loop.fetch("train", wait=0.3); loop.fetch("val", wait=0.05); loop.other(0.02)
        loop.fetch("train")

    clock, time, events, _ = make()
    iterate(Loop(clock, time))
    assert steps(events) == [] and clock.unit is None
    clock, time, events, _ = make(replace(NO_STOP, steps_by_batches=True))
    iterate(Loop(clock, time))
    got = steps(events)
    assert clock.unit == "loader" and [s["boundary"] for s in got] == ["loader"] * 4
    assert all(s["batches"] == 2 and s["data_wait"] == pytest.approx(0.35) for s in got)
    assert got[-1]["duration"] == pytest.approx(0.37)


def test_validation_between_epochs_is_its_own_step_and_training_resumes_cleanly():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(3):
        loop.train_iteration("train")
    clock.note_epoch_start()
    for _ in range(5):
        loop.fetch("val"); loop.forward(dt=0.05, training=False)
    clock.note_epoch_start()
    for _ in range(2):
        loop.train_iteration("train")
    loop.fetch("train")
    got = steps(events)
    assert [s["validation"] for s in got] == [False, False, False, True, False, False]
    assert got[3]["batches"] == 5 and got[3]["epoch_start"] and got[4]["epoch_start"]
    assert not any(s["epoch_start"] for s in got[:3])  # the epoch's start is flagged on its first step


def test_two_loaders_read_together_do_not_split_an_iteration():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(3):
        loop.fetch("images"); loop.fetch("captions")
        loop.forward(); loop.backward(); loop.step()
    loop.fetch("images")
    assert [s["batches"] for s in steps(events)] == [2, 2, 2]


def test_prefetching_frameworks_still_give_one_step_per_iteration():
    """Lightning's and accelerate's fetchers draw batch n+1 before running batch n."""
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    loop.fetch()
    for _ in range(4):
        loop.fetch()
        loop.forward(); loop.backward(); loop.step()
    got = steps(events)
    assert [s["batches"] for s in got] == [2, 1, 1]
    assert all(s["updates"] == 1 for s in got)


def test_batches_made_ahead_of_time_are_delimited_by_the_optimizer():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for _ in range(5):
        loop.fetch()  # batches = list(loader)
    for _ in range(4):
        loop.forward(); loop.backward(); loop.step()
    assert clock.unit == "optimizer"
    # The second optimizer step with no fetch between shows it: from then on, one step per update.
    assert [s["updates"] for s in steps(events)] == [2, 1, 1]


def test_the_learning_rate_of_each_step_is_recorded():
    clock, time, events, _ = make()
    loop = Loop(clock, time)
    for i in range(4):
        loop.train_iteration(lr=0.1 * (i + 1))
    loop.fetch()
    assert [s["lr"] for s in steps(events)] == pytest.approx([0.1, 0.2, 0.3, 0.4])


@pytest.mark.parametrize("census, counted", [(True, 2), (False, 0)])
def test_window_plan_runs_in_order_and_stops(census, counted):
    """Warm-up, the counting steps (when the plan has them), steady, torch.profiler, cProfile, stop."""
    plan = WindowPlan(warmup_steps=2, census=census, steady_min_steps=3, steady_seconds=0.0, profile_min_steps=2,
                      profile_seconds=0.0, cprofile_min_steps=2, cprofile_seconds=0.0, max_seconds=None)
    clock, time, events, windows = make(plan)
    loop = Loop(clock, time)
    with pytest.raises(ProbeStop):
        for _ in range(50):
            loop.train_iteration()
    counting = ["census_start"] + ["census_step"] * counted + ["census_stop"] if counted else []
    assert windows == counting + ["steady_start", "profiler_start", "profiler_stop", "cprofile_start", "cprofile_stop"]
    phases = [s["phase"] for s in steps(events)]
    assert phases == ["warmup"] * 2 + ["census"] * counted + ["steady"] * 3 + ["profiled"] * 2 + ["cprofile"] * 2
    assert clock.stop_reason == "measured enough steps"


def test_full_runs_never_stop():
    plan = WindowPlan(warmup_steps=1, steady_min_steps=1, steady_seconds=0.0, profile_min_steps=1,
                      profile_seconds=0.0, cprofile_min_steps=1, cprofile_seconds=0.0, full=True, max_seconds=None)
    clock, time, events, _ = make(plan)
    loop = Loop(clock, time)
    for _ in range(20):
        loop.train_iteration()
    assert steps(events)[-1]["phase"] == "after"


def test_max_seconds_stops_at_the_next_iteration():
    clock, time, events, _ = make(WindowPlan(max_seconds=1.0))
    loop = Loop(clock, time)
    loop.train_iteration()
    time.advance(2.0)
    with pytest.raises(ProbeStop):
        loop.train_iteration()
    assert "max-seconds" in clock.stop_reason


def test_slow_steps_leave_room_for_the_profiling_windows_within_max_seconds():
    """12 s steps and --max-seconds 160: warm-up and the steady window end early enough that the
    torch.profiler and cProfile windows still run before the stop. (150 s until the first step stopped
    setting the pace: the warm-up now takes a second step to learn it, 12 s more here.)"""
    plan = WindowPlan(max_seconds=160)
    clock, time, events, windows = make(plan)
    loop = Loop(clock, time)
    with pytest.raises(ProbeStop):
        for _ in range(40):
            loop.fetch()
            loop.forward(dt=12.0)
            loop.backward()
            loop.step()
    # Too slow for a counting step beside them: it is skipped, and the record says so.
    assert windows == ["census_skipped", "steady_start", "profiler_start", "profiler_stop", "cprofile_start",
                       "cprofile_stop"]
    phases = [s["phase"] for s in steps(events)]
    assert phases.count("steady") >= 5 and phases.count("profiled") >= 3 and phases.count("cprofile") >= 3
    assert clock.stop_reason == "measured enough steps"


def test_a_slow_first_step_does_not_set_the_pace():
    """A GPU run: the first step carries the CUDA context and cuBLAS set-up (4 s), every later one
    takes 3 ms. Read as the pace, the first step ended the warm-up at once and skipped the counting
    step on every GPU run (the H200 campaign of 2026-11-26); the warm-up runs its steps and the
    counting step runs."""
    plan = WindowPlan(warmup_steps=5, max_seconds=25)
    clock, time, events, windows = make(plan)
    loop = Loop(clock, time)
    time.advance(8.0)  # the script's imports and set-up before its first step
    with pytest.raises(ProbeStop):
        for i in range(3000):
            loop.fetch(wait=0.0005)
            loop.forward(dt=4.0 if i == 0 else 0.002)
            loop.backward(dt=0.0005)
            loop.step()
    phases = [s["phase"] for s in steps(events)]
    assert phases.count("warmup") == 5
    assert windows[0] == "census_start" and "census_skipped" not in windows


def _accumulating(loop, micro_batches, first_micro=4.5, micro=4.5):
    """One update as the Hugging Face Trainer makes it: its micro-batches fetched first, then run."""
    for _ in range(micro_batches):
        loop.fetch(wait=0.001)
    for m in range(micro_batches):
        loop.forward(dt=(first_micro if m == 0 else micro) * 0.4)
        loop.backward(dt=(first_micro if m == 0 else micro) * 0.6)
    loop.step()


def test_slow_steps_of_micro_batches_get_the_profiler_on_their_second_step():
    """StarCoder's fine-tune (test set 20): steps of 16 micro-batches of 4.5 s, --max-seconds 90. The first step
    set no pace, the warm-up took the second as well, and the stop came before any window. The first step's
    micro-batches now give the pace (72 s a step), and with no room for a steady window the second step is
    profiled: it is judged by its micro-batches."""
    plan = WindowPlan(max_seconds=90)
    clock, time, events, windows = make(plan)
    loop = Loop(clock, time)
    with pytest.raises(ProbeStop):
        for _ in range(4):
            _accumulating(loop, 16)
    phases = [s["phase"] for s in steps(events)]
    assert phases[:2] == ["warmup", "profiled"], phases
    assert windows[:2] == ["census_skipped", "profiler_start"]
    assert "max-seconds" in clock.stop_reason


def test_a_first_micro_batch_that_carries_start_up_does_not_make_fast_steps_look_slow():
    """torch.compile (or a CUDA context) in the first micro-batch: 60 s, then 16 micro-batches of 0.05 s. The
    pace is the other micro-batches' (0.8 s a step), so the usual windows follow, the counting step first."""
    plan = WindowPlan(max_seconds=120)
    clock, time, events, windows = make(plan)
    loop = Loop(clock, time)
    with pytest.raises(ProbeStop):
        _accumulating(loop, 16, first_micro=60.0, micro=0.05)
        for _ in range(200):
            _accumulating(loop, 16, micro=0.05, first_micro=0.05)
    assert windows[0] == "census_start" and "census_skipped" not in windows
    assert "profiler_start" in windows and windows.index("steady_start") < windows.index("profiler_start")


def test_the_step_that_closes_a_window_waits_for_the_device():
    """A GPU runs behind the host: the step that closes the steady window, and the one that closes the
    profiled window, drain the device's queue (here 0.5 s of queued work), so each window's time holds
    all of its device work; no other step waits."""
    plan = WindowPlan(warmup_steps=2, census=False, steady_min_steps=6, steady_seconds=0.0, steady_max_steps=6,
                      profile_min_steps=3, profile_seconds=0.0, profile_max_steps=3, cprofile=False,
                      max_seconds=None)
    time = FakeTime()
    events, drained = [], []

    def drain():
        drained.append(time.t)
        time.advance(0.5)

    clock = StepClock(plan, t0=100.0, emit=lambda kind, **d: events.append((kind, d)), now=time, drain=drain)
    loop = Loop(clock, time)
    with pytest.raises(ProbeStop):  # measured enough steps
        for _ in range(20):
            loop.train_iteration()
    recorded = steps(events)
    steady = [s for s in recorded if s["phase"] == "steady"]
    profiled = [s for s in recorded if s["phase"] == "profiled"]
    assert len(drained) == 2 and len(steady) == 6 and len(profiled) == 3
    assert steady[-1]["duration"] > 0.5 > max(s["duration"] for s in steady[:-1])
    assert profiled[-1]["duration"] > 0.5 > max(s["duration"] for s in profiled[:-1])


def _epochs_plan(steady_min_steps: int, profile_seconds: float) -> WindowPlan:
    return WindowPlan(warmup_steps=2, census=False, steady_min_steps=steady_min_steps, steady_seconds=0.0,
                      profile_min_steps=2, profile_seconds=profile_seconds, profile_max_steps=20,
                      cprofile_min_steps=2, cprofile_seconds=0.0, max_seconds=None)


def _run_epochs(loop: Loop, epochs: int, training_steps: int, validation_batches: int) -> None:
    """Epochs of training steps, each followed by a validation pass (when it has batches), until the stop."""
    with pytest.raises(ProbeStop):
        for _ in range(epochs):
            loop.clock.note_epoch_start()
            for _ in range(training_steps):
                loop.train_iteration()
            if validation_batches:
                loop.clock.note_epoch_start()
            for _ in range(validation_batches):
                loop.fetch("val"); loop.forward(dt=0.05, training=False)


def test_short_epochs_keep_their_ends_out_of_the_profiled_window():
    """Epochs of 6 training steps, each ended by a validation pass: a profiled window of up to 20 steps
    would hold an epoch's end (TabNet, test set 3: 3 of its 4 profiled steps were such, ten times the
    steady step). The profiler waits for the next epoch's first steps, then stays inside the epoch."""
    clock, time, events, windows = make(_epochs_plan(steady_min_steps=10, profile_seconds=10.0))
    _run_epochs(Loop(clock, time), epochs=30, training_steps=6, validation_batches=3)
    got = steps(events)
    profiled = [s for s in got if s["phase"] == "profiled"]
    assert 2 <= len(profiled) <= 4  # the epoch's 6 steps less its ends
    assert not any(s["epoch_start"] or s["validation"] for s in profiled)
    assert windows[:3] == ["steady_start", "profiler_start", "profiler_stop"]


def test_short_epochs_keep_their_ends_out_of_the_cprofile_window_too():
    """The cProfile window (the loop's own Python: host facts) follows the profiled one, which ends inside
    an epoch: started at once, it held the epoch's end and the validation pass's Python. It waits for the
    next epoch's first steps as the profiler does, and stays inside that epoch."""
    plan = replace(_epochs_plan(steady_min_steps=10, profile_seconds=10.0), cprofile_seconds=10.0)
    clock, time, events, windows = make(plan)
    _run_epochs(Loop(clock, time), epochs=30, training_steps=6, validation_batches=3)
    got = steps(events)
    cprofiled = [s for s in got if s["phase"] == "cprofile"]
    assert 2 <= len(cprofiled) <= 4
    assert not any(s["epoch_start"] or s["validation"] for s in cprofiled)
    assert windows[:5] == ["steady_start", "profiler_start", "profiler_stop", "cprofile_start", "cprofile_stop"]
    # the wait is outside every window, and says what it waits for (the progress lines name it)
    entered = [(d["name"], d.get("waits_for")) for kind, d in events if kind == "window"]
    assert ("after", "cprofile") in entered and entered.index(("after", "cprofile")) < entered.index(("cprofile", None))


def test_long_epochs_start_the_profiler_at_once():
    clock, time, events, windows = make(_epochs_plan(steady_min_steps=3, profile_seconds=0.0))
    _run_epochs(Loop(clock, time), epochs=3, training_steps=40, validation_batches=0)
    assert [s["phase"] for s in steps(events)][:9] == ["warmup"] * 2 + ["steady"] * 3 + ["profiled"] * 2 + ["cprofile"] * 2


def test_the_progress_lines_say_what_a_wait_waits_for():
    from types import SimpleNamespace
    from trainprobe.probe.launch import _Progress
    lines: list[str] = []
    progress = _Progress(lines.append)
    child = SimpleNamespace(steps=[], stop_requested=None, windows=[
        {"name": "profiled", "step": 83}, {"name": "after", "waits_for": "cprofile", "step": 89},
        {"name": "cprofile", "step": 92}, {"name": "after", "step": 98}])
    progress.update(child)
    assert lines == ["profiling ops (torch.profiler) (step 83)",
                     "waiting for the next epoch's first steps before profiling Python (cProfile) (step 89)",
                     "profiling Python (cProfile) (step 92)", "measurements complete (step 98)"]
