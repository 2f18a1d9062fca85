"""Live and read agree: the probe writes its profiler window as a standard trace, with its steps as
ProfilerStep#N ranges, and `trainprobe trace` on that file splits the same steps and reaches the
live diagnosis's verdict.

The fast tests read live runs recorded on this machine (tests/data/runs/live/NAME/: run.json and the
profile.pt.trace.json.gz the probe wrote beside it); the slow one makes a new run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from trainprobe.api import diagnose, trace
from trainprobe.engine import apply_rules as analyze_record
from trainprobe.probe.config import WindowPlan
from trainprobe.probe.profsummary import LIVE_TRACE_NAME

sys.path.insert(0, os.path.dirname(__file__))
import recorded  # noqa: E402

LIVE = Path(__file__).parent / "data" / "runs" / "live"
RUNS = sorted(p.name for p in LIVE.iterdir() if (p / LIVE_TRACE_NAME).exists()) if LIVE.exists() else []
SAMPLES = Path(__file__).parent.parent / "sample_scripts"


@pytest.mark.parametrize("name", RUNS)
def test_the_trace_holds_the_profiled_steps(name):
    record = recorded.load(LIVE / name / "run.json")
    profiled = [s for s in record.steps if s.phase == "profiled"]
    read = recorded.trace_digest(LIVE / name / LIVE_TRACE_NAME)
    assert len(read.steps) == len(profiled) == record.profiler.steps
    for live, traced in zip(profiled, read.steps):
        assert traced.index == live.index
        assert traced.duration == pytest.approx(live.duration, rel=0.02, abs=2e-4)
        assert traced.data_wait == pytest.approx(live.data_wait, rel=0.05, abs=5e-4)


@pytest.mark.parametrize("name", RUNS)
def test_reading_the_trace_gives_the_live_verdict(name):
    _, live = recorded.diagnosed(LIVE / name / "run.json")
    read = analyze_record(recorded.trace_record_at(LIVE / name / LIVE_TRACE_NAME))
    assert read.verdict.category == live.verdict.category, (live.verdict.headline, read.verdict.headline)


@pytest.mark.slow
def test_a_new_run_and_its_trace_agree(tmp_path):
    # A 2 s steady window (CI's time): the sample's decode stall is most of every step.
    live = diagnose([str(SAMPLES / "imagefolder_main_process_decode.py")], tmp_path / "live",
                    plan=WindowPlan(steady_seconds=2.0))
    path = tmp_path / "live" / LIVE_TRACE_NAME
    assert path.exists() and live.record.profiler.trace_path == str(path)
    read = trace([path], tmp_path / "read")
    assert read.diagnosis.verdict.category == live.diagnosis.verdict.category == "input"
    # The sample's planted cause, end to end through a new run (the one live run of the input-bound sample
    # in the suite: tests/test_samples.py runs the host-bound and the clean one).
    assert "dataloader-too-few-workers" in {f.id for f in live.diagnosis.findings}


def test_profiled_steps_get_their_gpu_busy_time_from_the_device_timeline():
    """Only the profile sees the device: its per-step busy time goes onto the live record's steps."""
    from trainprobe.probe.assemble import _with_gpu_busy
    from trainprobe.record import ProfilerSummary, Step

    steps = [Step(index=i, duration=0.1, phase="profiled" if i >= 2 else "steady") for i in range(4)]
    read = recorded.trace_digest(recorded.TRACES_DIR / "v100_single_rank.pt.trace.json.gz").summary
    assert read.step_gpu_busy  # filled from a real GPU trace: step index -> seconds
    filled = _with_gpu_busy(steps, ProfilerSummary(step_gpu_busy={"2": 0.07, "3": 0.09}))
    assert [s.gpu_busy for s in filled] == [None, None, 0.07, 0.09]
    assert _with_gpu_busy(steps, None) == tuple(steps)
