"""Short runs: a script that ends before the profiling windows is run once more with windows fitted
to the steps it made, so every run of 20 steps or more gets an op profile and a Python profile."""

from __future__ import annotations

import pytest

from probe_helpers import SCRIPTS, diagnose
from trainprobe.facts.window import MIN_STEADY_STEPS
from trainprobe.probe.config import WindowPlan
from trainprobe.probe.refit import fitted_plan


@pytest.mark.parametrize("steps", [20, 32, 50, 300])
def test_fitted_windows_fit_the_steps_with_a_margin(steps):
    plan = fitted_plan(WindowPlan(), steps)
    assert plan is not None
    used = plan.warmup_steps + plan.steps + plan.profile_min_steps + plan.cprofile_min_steps
    assert used == steps - 1
    assert plan.steps >= MIN_STEADY_STEPS and plan.profile_min_steps >= 2 and plan.cprofile_min_steps >= 2
    assert plan.profile_max_steps == plan.profile_min_steps and plan.profile_seconds == 0


def test_too_few_steps_are_not_fitted():
    assert fitted_plan(WindowPlan(), 8) is None


@pytest.mark.slow
def test_a_script_that_ends_before_the_windows_is_run_again_with_fitted_windows(tmp_path):
    # One epoch of 32 fast steps: far shorter than the default 6 s steady window.
    proc, record = diagnose(tmp_path / "out", str(SCRIPTS / "loop.py"), "--epochs", "1")
    assert proc.returncode == 0, proc.stderr
    assert record.profiler.availability.available and record.hotspots.availability.available
    phases = [s.phase for s in record.steps]
    assert phases.count("steady") >= MIN_STEADY_STEPS
    assert any("second run with windows fitted" in note for note in record.notes), record.notes
    assert (tmp_path / "out" / "first-run" / "run.json").exists()
    assert (tmp_path / "out" / "report.html").exists()
