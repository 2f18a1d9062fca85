"""Each op of a profiled step is put to the phase it ran in by the trace's ``trainprobe::`` ranges. A model
child that the loop calls itself (BYOL's momentum backbone, ``model.forward_momentum(x)``) is a model of its
own to the probe as well as a child: its module range must sit inside its forward phase, or the trace's
nesting leaves its ops in no phase ("other") and the forward's wall time, less its ops, reads as a fixed cost
(test set 14's BYOL: launch-bound, 32% "dispatch", where the step was the convolutions' math)."""

from __future__ import annotations

import gzip
import json

import pytest

import recorded
from probe_helpers import SCRIPTS
from trainprobe.probe.config import WindowPlan
from trainprobe.trace.collect import collect
from trainprobe.trace.read import TraceReader
from trainprobe.trace.summarize import digest

BYOL = recorded.RUNS_DIR / "real_test14" / "t14_lightly_byol_cifar"
# Windows of a few steps each: the test is about where the ranges sit, not the figures.
SHORT_WINDOWS = WindowPlan(warmup_steps=3, steady_min_steps=3, steady_seconds=0.3, profile_min_steps=3,
                           profile_seconds=0.2, cprofile_min_steps=1, cprofile_seconds=0.1, max_seconds=60.0)


def _profiled_wall(record, phase: str) -> float:
    steps = [s for s in record.steps if s.phase == "profiled"]
    return sum(getattr(s, phase) for s in steps) / len(steps)


def test_a_module_range_that_outlives_its_phase_keeps_its_ops_in_that_phase():
    """The held-out BYOL run's own trace (recorded before the probe closed such ranges first): its momentum
    backbone's range ends a hair after its forward phase. Its ops are the forward's."""
    record = recorded.load(recorded.RUNS_DIR / "real_test14" / "t14_lightly_byol_cifar.cpu.run.json.gz")
    summary = digest(collect(TraceReader(BYOL / "profile.pt.trace.json.gz").events())).summary
    forward_wall = _profiled_wall(record, "forward")
    step = sum(s.duration for s in record.steps if s.phase == "profiled") / summary.steps
    assert 0.85 * forward_wall <= summary.op_time_by_phase["forward"] <= forward_wall
    assert summary.op_time_by_phase["other"] < 0.05 * step
    # what the run recorded at the time: half of the forward's ops in "other"
    assert record.profiler.op_time_by_phase["other"] > 0.25 * step


def _ranges(trace_path, name: str) -> list[tuple[float, float]]:
    with gzip.open(trace_path, "rt") as fh:
        events = json.load(fh)["traceEvents"]
    return sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("ph") == "X" and e.get("name") == name)


@pytest.mark.slow
def test_a_child_the_loop_calls_itself_has_its_range_inside_its_forward(tmp_path):
    from trainprobe.api import diagnose

    record = diagnose([str(SCRIPTS / "momentum_branch.py")], tmp_path / "run", plan=SHORT_WINDOWS).record
    assert record.outcome.status in ("stopped", "completed"), record.outcome
    trace = tmp_path / "run" / "profile.pt.trace.json.gz"
    forwards = _ranges(trace, "trainprobe::forward")
    momentum = _ranges(trace, "trainprobe::module::backbone_momentum")
    assert momentum and forwards
    for start, end in momentum:  # nested, as the trace format means ranges to be
        assert any(a <= start and end <= b for a, b in forwards), (start, end)
    ops = record.profiler.op_time_by_phase
    # an op's time is part of its phase's wall time: none of the momentum forward's ops is left to "other"
    assert ops["other"] <= 1.2 * _profiled_wall(record, "other")
    assert ops["forward"] >= 0.6 * _profiled_wall(record, "forward")
