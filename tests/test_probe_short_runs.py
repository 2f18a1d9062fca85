"""Short runs: a script that ends before the profiling windows, or while trainprobe still warms up, is
run once more with windows fitted to the steps it made, so every run of 20 steps or more gets an op
profile and a Python profile, and a run of 4 steps or more gets a verdict when its steps are decisive
(facts/window.py, engine/stability.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from probe_helpers import SCRIPTS, diagnose
from trainprobe.facts.window import FEWEST_STEPS, MIN_STEADY_STEPS
from trainprobe.engine import apply_rules
from trainprobe.findings import Diagnosis
from trainprobe.probe.config import WindowPlan
from trainprobe.probe.refit import batches_only, fitted_plan, refit
from trainprobe.record import RunRecord

DATA = Path(__file__).parent / "data" / "runs"
FIRST_RUNS = Path(__file__).parent / "data" / "first_runs"  # first runs that made no step (kept for refit's tests)


@pytest.mark.parametrize("steps", [20, 32, 50, 300])
def test_fitted_windows_fit_the_steps_with_a_margin(steps):
    plan = fitted_plan(WindowPlan(), steps)
    assert plan is not None
    used = plan.warmup_steps + plan.census_steps + plan.steps + plan.profile_min_steps + plan.cprofile_min_steps
    assert plan.census and used == steps - 1  # the counting steps after warm-up are steps too
    assert plan.steps >= MIN_STEADY_STEPS and plan.profile_min_steps >= 2 and plan.cprofile_min_steps >= 2
    assert plan.profile_max_steps == plan.profile_min_steps and plan.profile_seconds == 0


@pytest.mark.parametrize("steps, steady, profiler, census, cprofile", [
    (4, 3, False, False, False), (5, 3, True, False, False), (6, 3, True, True, False),
    (7, 3, True, True, True), (10, 6, True, True, True)])
def test_a_run_too_short_for_the_usual_windows_gets_the_shortest_ones(steps, steady, profiler, census, cprofile):
    """One warm-up step, at least FEWEST_STEPS steady steps, then a one-step window each while they fit:
    torch.profiler, one counting step, cProfile."""
    plan = fitted_plan(WindowPlan(), steps)
    assert plan is not None
    assert (plan.warmup_steps, plan.steps, plan.profiler, plan.census, plan.cprofile) == \
        (1, steady, profiler, census, cprofile)
    assert plan.warmup_steps + plan.steps + plan.profiler + plan.census * plan.census_steps + plan.cprofile == steps
    assert plan.profile_max_steps == plan.cprofile_max_steps == 1 and plan.census_steps == 1
    assert plan.peak  # the hardware's peak is measured after the run, with or without a counting step


def test_too_few_steps_are_not_fitted():
    assert fitted_plan(WindowPlan(), FEWEST_STEPS) is None  # a warm-up step leaves too few steady ones


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


@pytest.mark.slow
def test_a_script_that_will_not_run_twice_keeps_its_first_run(tmp_path):
    """A script that refuses an output folder left by an earlier run (hysts' image classification in
    test set 7 raises 'Output directory `out` already exists') fails its second, fitted run before a
    step: the first run's record, report and verdict stand, with a note that says why, and the second
    run's files are kept apart. Before, the report was of the failed second run: no step, no verdict."""
    out, made = tmp_path / "out", tmp_path / "results"
    proc, record = diagnose(out, str(SCRIPTS / "loop.py"), "--epochs", "1", "--output-dir", str(made))
    assert proc.returncode == 0, proc.stderr
    assert record.outcome.status == "completed" and len(record.steps) >= 30, record.outcome
    assert any("second run with windows fitted to those steps ended before measuring more: RuntimeError: "
               "Output directory" in note and "this report is from the first run" in note
               for note in record.notes), record.notes
    assert RunRecord.load(out / "second-run" / "run.json").outcome.status == "failed"
    assert not (out / "first-run").exists() and (out / "report.html").exists()
    assert Diagnosis.load(out / "diagnosis.json").verdict.category != "unknown"


@pytest.mark.slow
def test_a_script_that_resumes_from_its_first_runs_checkpoint_keeps_its_first_run(tmp_path):
    """A script that saves a checkpoint and resumes from it (solo-learn's auto-resume, test set 16) trains
    nothing in its second, fitted run and ends by itself: the first run's record, report and verdict stand.
    Before, the report was of the second run: no step, verdict unknown."""
    out, checkpoint = tmp_path / "out", tmp_path / "last.ckpt"
    proc, record = diagnose(out, str(SCRIPTS / "loop.py"), "--epochs", "1", "--resume-from", str(checkpoint))
    assert proc.returncode == 0, proc.stderr
    assert record.outcome.status == "completed" and len(record.steps) >= 30, record.outcome
    assert any("ended before measuring more: the script ran to its end after 0 steps" in note and
               "resumes from the checkpoint its first run saved" in note for note in record.notes), record.notes
    assert RunRecord.load(out / "second-run" / "run.json").steps == ()
    assert Diagnosis.load(out / "diagnosis.json").verdict.category != "unknown"


@pytest.mark.slow
def test_a_second_run_lost_on_what_the_first_left_in_the_scripts_folder_runs_again_without_it(tmp_path):
    """ConvNeXt's auto-resume and audiolm's y/n prompt about its results folder (test set 20) failed their second,
    fitted runs on what the first run had made in the script's folder, so neither got an op profile. Here the
    script refuses the output folder ``results`` it makes in its working folder: the second run fails on it, and a
    third runs with the first run's ``results`` set aside in first-run/script-folder/ (moved, not deleted)."""
    out = tmp_path / "out"
    proc, record = diagnose(out, str(SCRIPTS / "loop.py"), "--epochs", "1", "--output-dir", "results", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert record.profiler.availability.available and record.hotspots.availability.available
    assert any("this is a third run" in note and "results moved to first-run/script-folder/" in note
               for note in record.notes), record.notes
    assert (out / "first-run" / "script-folder" / "results").is_dir()  # the first run's, kept
    assert (out / "first-run" / "run.json").exists()
    assert RunRecord.load(out / "second-run" / "run.json").outcome.status == "failed"
    assert (tmp_path / "results").is_dir()  # the third run's own, where the script put it


def test_only_what_a_run_made_in_the_folder_is_set_aside_and_it_comes_back(tmp_path):
    from trainprobe.probe.leftovers import bring_back, listing, made_since, set_aside_made

    (tmp_path / "data").mkdir()
    out = tmp_path / "trainprobe-runs" / "train-1"
    out.mkdir(parents=True)
    before = listing(tmp_path)
    for name in ("results", ".idea", "__pycache__"):
        (tmp_path / name).mkdir()
    (tmp_path / "last.ckpt").write_text("weights")
    made = made_since(tmp_path, before, out)
    assert made == ["last.ckpt", "results"]  # not the data there before, trainprobe's folder, hidden ones, caches
    assert made_since(tmp_path, before | {"trainprobe-runs"}, out) == made
    moved, left = set_aside_made(tmp_path, made, out / "first-run" / "script-folder")
    assert (moved, left) == (made, []) and not (tmp_path / "results").exists()
    (tmp_path / "results").mkdir()  # a later run made its own: the first run's stays set aside
    assert bring_back(tmp_path, out / "first-run" / "script-folder") == ["results"]
    assert (tmp_path / "last.ckpt").read_text() == "weights"
    assert made_since(tmp_path, None, out) == []  # a folder that could not be read before: nothing moves
    # Nothing could be moved (another file system, here a name that is not there): no empty holding folder stays.
    holding = out / "second-run" / "script-folder"
    assert set_aside_made(tmp_path, ["gone"], holding) == ([], ["gone"]) and not holding.exists()


@pytest.mark.parametrize("name, line, words", [
    ("t20_fb_convnext_tiny", "engine.py:52", 'make it torch.autocast("cpu", dtype=torch.bfloat16)'),
    ("t20_lucidrains_audiolm_soundstream", "soundstream_readme.py:77",
     'pass SoundStreamTrainer(..., accelerate_kwargs=dict(mixed_precision="bf16"))'),
])
def test_test_set_20s_short_runs_measured_by_a_third_run_get_their_experts_fix(name, line, words):
    """Test set 20, run again after its held-out run (a later review, not the held-out figure): ConvNeXt and
    audiolm lost their second runs on their first runs' files (a resumed checkpoint, a y/n prompt) and missed
    bf16. Their third runs, with those files set aside, profiled the op mix: the bf16 fix at each expert's line,
    audiolm's in the terms of the library trainer that builds its Accelerator."""
    import recorded
    record, diagnosis = recorded.diagnosed(DATA / "real_test20" / "review" / f"{name}.cpu.run.json.gz")
    assert any("this is a third run" in note for note in record.notes), record.notes
    assert record.profiler.availability.available
    bf16 = {f.id: f for f in diagnosis.findings}["cpu-bf16-not-used"]
    assert bf16.changes_at == line and words in bf16.advice


def test_solo_learns_resumed_second_run_leaves_its_first_run_standing():
    """Test set 16's solo-learn SimCLR, run again after the fix (a review, not the held-out record): the second
    run resumed from the first's checkpoint and trained nothing; the report is the first run's six steps, with
    the expert's verdict."""
    import recorded
    record, diagnosis = recorded.diagnosed(DATA / "real_test16" / "review" / "t16_solo_simclr_cifar.cpu.run.json.gz")
    assert sum(1 for s in record.steps if not s.validation) == 6
    assert any("ran to its end after 0 steps" in note for note in record.notes), record.notes
    assert diagnosis.verdict.category == "compute"


def test_a_second_run_with_no_step_to_count_still_has_the_hardwares_peak():
    """Test set 17's PyTorch-YOLOv3, run again after the fix (a review, not the held-out record): five steps of
    7 s, a second run of warm-up 1, steady 3 and profiled 1, no counting step. The CPU's peak is measured after
    it, so the bf16 lever its expert measured (1.76x) is judged and names the expert's line, the forward."""
    import recorded
    path = DATA / "real_test17" / "review" / "t17_eriklindernoren_yolov3_tiny_coco.cpu.run.json.gz"
    record, diagnosis = recorded.diagnosed(path)
    assert not record.compute.flops.availability.available and record.compute.peak.availability.available
    finding = next(f for f in diagnosis.findings if f.id == "cpu-bf16-not-used")
    assert finding.changes_at == "pytorchyolo/train.py:163" and diagnosis.verdict.category == "compute"


def test_a_run_too_short_to_profile_does_not_claim_no_bottleneck():
    """Test set 17's DDPM (4 steps of 7.6 s, the held-out record): too few for a profiling window beside three
    steady steps, so no rule could read the op mix; its expert's bf16 lever went unsaid. The headline says so
    and what would give the profile, instead of 'no significant bottleneck found'."""
    import recorded
    _, diagnosis = recorded.diagnosed(DATA / "real_test17" / "t17_explainingai_ddpm_mnist.cpu.run.json.gz")
    headline = diagnosis.verdict.headline
    assert diagnosis.verdict.category == "compute" and "no significant bottleneck" not in headline
    assert "The script ended after 4 steps, before trainprobe could profile its ops" in headline
    assert "run it for more steps" in headline


def test_a_run_that_failed_before_its_profile_is_not_told_to_run_longer():
    """A rank that failed at step 12 (a recorded 2-rank job) also has no op profile, but more steps are not its
    remedy: its headline leads with the failure and does not ask for a longer run; its training steps are only
    counted for a run that ended by itself (the solo-learn review's 6, its validation step left out)."""
    import recorded
    diagnosis = recorded.diagnosis_of(recorded.job("crash"))
    assert diagnosis.verdict.headline.startswith("rank 1 failed")
    assert "run it for more steps" not in diagnosis.verdict.headline
    _, solo = recorded.diagnosed(DATA / "real_test16" / "review" / "t16_solo_simclr_cifar.cpu.run.json.gz")
    assert "The script ended after 6 steps, before trainprobe could profile its ops" in solo.verdict.headline


@pytest.mark.slow
def test_a_gan_of_five_iterations_is_run_again_and_judged_from_its_few_steps(tmp_path):
    """Five iterations of two optimizers end while trainprobe is still warming up: no step is 'missing'
    (the old headline said the script never called backward()); the second run, fitted to five steps,
    measures three steady steps and profiles one, and the verdict rests on them."""
    out = tmp_path / "out"
    proc, record = diagnose(out, str(SCRIPTS / "short_gan.py"))
    assert proc.returncode == 0, proc.stderr
    first = RunRecord.load(out / "first-run" / "run.json")
    assert [s.phase for s in first.steps] == ["warmup"] * 5 and all(s.updates == 2 for s in first.steps)
    assert any("while trainprobe was still warming up" in note and "steady 3, torch.profiler 1" in note
               for note in record.notes), record.notes
    assert [s.phase for s in record.steps].count("steady") == 3 and record.profiler.availability.available
    assert record.compute.peak.availability.available  # no step was left to count, but the peak is measured
    verdict = Diagnosis.load(out / "diagnosis.json").verdict
    assert "never called backward" not in verdict.headline
    assert verdict.category != "unknown", verdict.headline
    assert "Judged from a short run: 3 measured after warm-up" in verdict.headline


@pytest.mark.slow
def test_a_speed_test_of_four_slow_batches_gets_a_verdict(tmp_path):
    """Four batches of 2 s (the speed test's 6.5 s, scaled down with --max-seconds so that trainprobe
    leaves warm-up early just as it does there): the forward takes 89% of every step, so three steps
    are decisive. Nothing more fits in four steps, so there is no second run. The warm-up takes two
    steps (the first step does not set the pace: on a GPU it carries seconds of start-up), and the
    second is counted because the run is too short for a separate warm-up."""
    out = tmp_path / "out"
    proc, record = diagnose(out, "--max-seconds", "30", str(SCRIPTS / "slow_steps.py"), "--step-seconds", "2",
                            "--data-share", "0.01", timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert [s.phase for s in record.steps] == ["warmup", "warmup", "steady", "steady"]
    assert not (out / "first-run").exists()
    verdict = Diagnosis.load(out / "diagnosis.json").verdict
    assert verdict.category == "compute", verdict.headline
    assert verdict.breakdown["compute"] > 0.8
    assert "Judged from a short run: 3 measured, 1 of them a warm-up step after the first" in verdict.headline


def test_a_run_without_a_step_but_with_batches_is_run_again_taking_batches_as_steps():
    """The recorded first run of omarsar's logistic regression (test set 7, seen): torch.mm and a
    hand-written gradient, so no backward(), optimizer step or module forward, and no step; but it fetched
    100 batches from each of its two loaders. Its iterations are long (0.48 s), so the default windows
    fit a second run that takes batches as steps. A run that made steps is never run again so."""
    first = RunRecord.load(FIRST_RUNS / "t7_omarsar_logreg_hymenoptera.no-steps.json")  # the held-out run's
    assert batches_only(first) == 100
    again = refit(first, WindowPlan())
    assert again == replace(WindowPlan(), steps_by_batches=True)
    quick = replace(first, outcome=replace(first.outcome, duration=2.0))  # 20 ms a batch: windows fitted to 100
    assert refit(quick, WindowPlan()) == replace(fitted_plan(WindowPlan(), 100), steps_by_batches=True)
    trained = RunRecord.load(DATA / "real_test7" / "t7_gat_cora.cpu.run.json.gz")
    assert batches_only(trained) is None and refit(trained, WindowPlan()) is None


@pytest.mark.slow
def test_a_hand_written_update_on_bare_tensors_gets_steps_from_its_batches(tmp_path):
    """No backward(), optimizer or nn.Module: before, "never called backward() or optimizer.step()" and no
    verdict. The second run's steps are its iterations, from one training batch to the next, with the
    validation batch in between, and making the batches is most of each."""
    out = tmp_path / "out"
    proc, record = diagnose(out, str(SCRIPTS / "handgrad_loader.py"))
    assert proc.returncode == 0, proc.stderr
    assert RunRecord.load(out / "first-run" / "run.json").steps == ()
    training = [s for s in record.steps if not s.validation]
    assert len(training) >= 20 and all(s.boundary == "loader" and s.batches == 2 for s in training)
    assert record.settings.step_boundary == "loader"
    assert any("this second run takes each batch of the DataLoader that begins an iteration" in n
               for n in record.notes), record.notes
    verdict = Diagnosis.load(out / "diagnosis.json").verdict
    assert verdict.category == "input", verdict.headline
    assert verdict.primary_finding == "dataloader-whole-set-remade-each-step", verdict.headline
    assert "never called backward" not in verdict.headline


def test_the_second_run_of_a_hand_written_update_reads_the_whole_set_made_again_each_step():
    """omarsar's logistic regression recorded again (test set 7, seen) with its second run taking batches as
    steps: 94% of each iteration re-makes both one-batch image folders, the expert's 97%. The whole-set
    finding leads; more workers come after it, as information (one batch of a fresh iterator is made by
    one worker: the expert said workers would not help)."""
    record = RunRecord.load(DATA / "real_test7" / "t7_omarsar_logreg_hymenoptera.cpu.run.json.gz")
    assert record.settings.step_boundary == "loader"
    diagnosis = apply_rules(record)
    assert diagnosis.verdict.category == "input"
    assert diagnosis.verdict.primary_finding == "dataloader-whole-set-remade-each-step"
    workers = next(f for f in diagnosis.findings if f.id == "dataloader-too-few-workers")
    assert workers.severity == "info" and "do it after" in workers.gain.text
