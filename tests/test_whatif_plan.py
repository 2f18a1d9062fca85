"""The what-if's planning and statistics on fixed numbers, and the path with nothing to inject."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainprobe.api import DiagnoseResult
from trainprobe.findings import Diagnosis, Fact, Finding, Verdict
from trainprobe.record import Environment, Invocation, LoaderSettings, RunRecord, Settings
from trainprobe.api import verify
from trainprobe.findings import Trial
from trainprobe.whatif.fixes.num_workers import sweep as num_workers_sweep
from trainprobe.whatif.plan import MAX_ROUNDS, plan_candidates, schedule
from trainprobe.whatif.trials import faster_than_noise, interval, is_measured_gain, pair_ratios, spread
from trainprobe.whatif.verify import _gain_text


def _trial(step_time, label="fix", status="ok"):
    return Trial(index=0, label=label, status=status, step_time=step_time, steps=10)


def test_pair_ratios_and_interval():
    pairs = [(_trial(0.10, "baseline"), _trial(0.05)), (_trial(0.12, "baseline"), _trial(0.05)),
             (_trial(0.11, "baseline"), _trial(0.05))]
    ratios = pair_ratios(pairs)
    assert ratios == pytest.approx((2.0, 2.4, 2.2))
    result = interval(ratios)
    assert (result.median, result.low, result.high, result.n) == pytest.approx((2.2, 2.0, 2.4, 3))
    assert interval(()) is None


def test_a_failed_trial_gives_no_pair():
    pairs = [(_trial(0.1, "baseline"), _trial(None, status="failed")), (_trial(0.1, "baseline"), _trial(0.08))]
    assert pair_ratios(pairs) == pytest.approx((1.25,))


def _pairs(baselines, fixes):
    return [(_trial(b, "baseline"), _trial(f)) for b, f in zip(baselines, fixes)]


def test_gain_needs_two_pairs_all_above_the_threshold_and_beyond_the_noise():
    steady = _pairs([0.100, 0.104, 0.098], [0.050, 0.052, 0.049])
    assert is_measured_gain(interval(pair_ratios(steady)), steady)
    one = steady[:1]
    assert not is_measured_gain(interval(pair_ratios(one)), one)  # one pair: no interval
    small = _pairs([0.100, 0.100, 0.100], [0.097, 0.090, 0.090])
    assert not is_measured_gain(interval(pair_ratios(small)), small)  # one pair within 5 %
    # Every pair faster, but a repeat of the fix ran 2.3× slower than another: a busy machine, not a gain
    # (the numbers of a real false alarm on this shared machine before the noise test).
    noisy = _pairs([1.084, 1.090, 1.043], [0.899, 0.396, 0.903])
    assert min(pair_ratios(noisy)) > 1.05
    assert not is_measured_gain(interval(pair_ratios(noisy)), noisy)


def test_the_noise_test_on_log_step_times():
    assert faster_than_noise([0.10, 0.11], [0.05, 0.051])
    assert not faster_than_noise([0.10, 0.11], [0.05, 0.10])
    assert not faster_than_noise([0.10], [0.05, 0.05])  # one baseline: no noise estimate
    assert faster_than_noise([0.1, 0.1], [0.05, 0.05])  # no noise at all
    assert not faster_than_noise([0.05, 0.05], [0.1, 0.1])  # slower


def test_spread():
    assert spread([_trial(0.1, "baseline")]) == 0.0
    assert spread([_trial(0.1, "baseline"), _trial(0.12, "baseline")]) == pytest.approx(0.2)


def test_texts_say_measured_or_no_gain():
    assert _gain_text(interval([2.3, 2.4, 2.5]), 0.0, True) == "measured: 2.40× faster steps (2.30–2.50, n=3)"
    text = _gain_text(interval([0.98, 1.02]), 0.0, False)
    assert text.startswith("no measurable gain here: 1.00× (0.98–1.02, n=2)")
    assert _gain_text(interval([1.8]), 0.0, False).startswith("not confirmed: 1.80× in a single pair")
    assert "slower" in _gain_text(interval([0.7, 0.8]), 0.0, False)
    assert "within the run-to-run noise" in _gain_text(interval([1.2, 2.7]), 1.3, False)


def test_num_workers_sweep_around_the_suggestion_capped_by_cores():
    assert num_workers_sweep(1, 0, 2) == (1, 2)
    assert num_workers_sweep(4, 0, 16) == (2, 4, 8)
    assert num_workers_sweep(4, 0, 5) == (2, 4)
    assert num_workers_sweep(4, 4, 4) == (2,)  # the value in use is the baseline


def test_schedule_fits_the_budget():
    # 10 s trials, 3 candidates, 160 s left: one round (3), a second (4), room kept for 2 combined pairs.
    plan = schedule(3, 10.0, 160.0, combined=True)
    assert plan.candidates == 3 and plan.rounds == 3
    assert plan.order == (0, 1, 2, None, 2, 1, 0, None, 0, 1, 2)
    assert len(plan.order) * 10.0 + 4 * 10.0 <= 160.0
    # Too little for a second round: one pass, and only the candidates that fit.
    assert schedule(3, 10.0, 35.0).order == (0, 1, 2)
    assert schedule(3, 10.0, 25.0).candidates == 2
    assert schedule(2, 10.0, 5.0).order == ()
    # Cheap trials and a single fix: up to MAX_ROUNDS pairs, no room kept for a combined run.
    many = schedule(1, 10.0, 1000.0, combined=False)
    assert many.rounds == MAX_ROUNDS and many.order == (0,) + (None, 0) * (MAX_ROUNDS - 1)


def _record(script: Path, cuda: bool = False) -> RunRecord:
    return RunRecord(
        invocation=Invocation(script=str(script), cwd=str(script.parent), python_executable="python"),
        environment=Environment(usable_cores=2, logical_cores=2),
        settings=Settings(dataloaders=(LoaderSettings(num_workers=0, used_in_training=True),), cuda_used=cuda),
    )


def _finding(rule: str, fix_id=None) -> Finding:
    return Finding(id=rule, name=rule, category="input", severity="warning", title=rule, message="m",
                   advice="a", fix_id=fix_id)


def test_on_a_cpu_only_run_workers_come_with_the_threads_they_leave(tmp_path):
    """The advice's set_num_threads is part of the num_workers trial on a CPU-only run, and only there."""
    def keys(cpu_only: bool, threads: int) -> list[str]:
        diagnosis = Diagnosis(verdict=Verdict(category="input", headline="h"), facts=(
            Fact("suggested_num_workers", 1), Fact("cpu_only", cpu_only), Fact("torch_threads", threads)),
            findings=(_finding("dataloader-too-few-workers", "num_workers"),))
        candidates, _, _ = plan_candidates(_record(tmp_path / "train.py", cuda=not cpu_only), diagnosis)
        return [c.key for c in candidates]

    assert keys(True, 2) == ["num_workers=1 with torch threads=1", "num_workers=2 with torch threads=1"]
    assert keys(True, 1) == ["num_workers=1", "num_workers=2"]  # one thread already fits beside them
    assert keys(False, 2) == ["num_workers=1", "num_workers=2"]  # a GPU run's math is not on the cores


def test_which_findings_become_trials(tmp_path):
    diagnosis = Diagnosis(verdict=Verdict(category="input", headline="h"), facts=(
        Fact("suggested_num_workers", 1),), findings=(
        _finding("dataloader-too-few-workers", "num_workers"),
        _finding("dataloader-pin-memory-off", "pin_memory"),
        _finding("dataloader-workers-restart-each-epoch", "persistent_workers"),
        _finding("amp-not-used", "amp_fp16"),
        _finding("storage-bound-input", "faster_storage"),
        _finding("zero-grad-without-set-to-none", "set_to_none"),
        _finding("some-user-rule"),
    ))
    candidates, decided, answers = plan_candidates(_record(tmp_path / "train.py"), diagnosis)
    assert [c.key for c in candidates] == ["num_workers=1", "num_workers=2", "set_to_none"]
    assert answers["dataloader-too-few-workers"] == ["num_workers=1", "num_workers=2"]
    assert decided["dataloader-pin-memory-off"].status == "not_run"  # no GPU used
    assert decided["dataloader-workers-restart-each-epoch"].status == "not_run"  # no workers
    assert decided["amp-not-used"].status == "not_injectable" and "GradScaler" in decided["amp-not-used"].text
    assert decided["storage-bound-input"].status == "not_injectable"
    assert "/dev/shm" in decided["storage-bound-input"].text
    assert decided["some-user-rule"].status == "not_injectable"
    assert "apply the advice to a copy of the script" in decided["some-user-rule"].text


def test_nothing_to_inject_says_how_to_try_by_hand(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("print('never run')\n")
    record = _record(script)
    record_path = tmp_path / "run.json"
    record.save(record_path)
    diagnosis = Diagnosis(verdict=Verdict(category="input", headline="h"),
                          findings=(_finding("storage-bound-input", "faster_storage"),
                                    _finding("small-batch-underused-gpu", "larger_batch")))
    result = DiagnoseResult(record, record_path, diagnosis, None, {"findings": []})
    lines = []
    verified = verify(result, budget=30, progress=lines.append)
    v = {f.id: f.verification for f in verified.diagnosis.findings}
    assert v["storage-bound-input"].status == "not_injectable"
    assert "batch size" in v["small-batch-underused-gpu"].text
    saved = json.loads((tmp_path / "diagnosis.json").read_text())["whatif"]
    assert saved["trials"] == [] and saved["verifications"]["storage-bound-input"]["status"] == "not_injectable"
    assert not (tmp_path / "verify").exists()  # nothing was run
    assert any("no finding has a fix" in line for line in lines)


def test_verify_refuses_a_record_whose_script_is_gone(tmp_path):
    from trainprobe.cli import main

    record = _record(tmp_path / "gone.py")
    record.save(tmp_path / "run.json")
    assert main(["verify", str(tmp_path / "run.json"), "-q"]) == 2
    assert main(["verify", str(tmp_path / "missing.json"), "-q"]) == 2


def test_combined_run_takes_the_best_value_of_each_helpful_fix():
    from trainprobe.whatif.plan import Candidate
    from trainprobe.whatif.session import Outcome, combined_fixes
    from trainprobe.whatif.verify import _combined

    candidates = [Candidate("num_workers=1", "num_workers", {"num_workers": 1}),
                  Candidate("num_workers=2", "num_workers", {"num_workers": 2}),
                  Candidate("anomaly_off", "anomaly_off", {"anomaly_off": True}),
                  Candidate("set_to_none", "set_to_none", {"set_to_none": True})]
    pairs = {"num_workers=1": _pairs([0.10, 0.10, 0.11], [0.070, 0.071, 0.069]),
             "num_workers=2": _pairs([0.10, 0.10, 0.11], [0.050, 0.051, 0.049]),
             "anomaly_off": _pairs([0.10, 0.10, 0.11], [0.080, 0.081, 0.079]),
             "set_to_none": _pairs([0.10, 0.10, 0.11], [0.099, 0.101, 0.100])}
    results = {key: interval(pair_ratios(p)) for key, p in pairs.items()}
    assert combined_fixes(candidates, results, pairs) == {"num_workers": 2, "anomaly_off": True}
    # One helpful fix id only: the combined run would repeat it.
    assert combined_fixes(candidates[:2] + candidates[3:], results, pairs) is None

    together = _pairs([0.10, 0.11], [0.030, 0.031])
    outcome = Outcome(combined=Candidate("combined", "combined", {"num_workers": 2, "anomaly_off": True}),
                      combined_pairs=together, combined_result=interval(pair_ratios(together)))
    summary = _combined(outcome)
    assert summary.status == "measured" and summary.n == 2
    assert summary.text.startswith("what your script could do with num_workers=2, anomaly_off: measured: ")


def test_the_trials_are_planned_on_the_loader_the_findings_are_about(tmp_path):
    """The what-if reads the training loader as the facts do (facts.input.training_loader): with no loader
    marked as feeding a backward (a record made before that was noted), the busiest one, not the first
    built. Here the first is a validation loader without workers: planning on it called the training
    loader's persistent_workers fix untriable ("needs DataLoader workers")."""
    from dataclasses import replace
    from trainprobe.record import Step
    validation = LoaderSettings(num_workers=0, batches=5)
    training = LoaderSettings(num_workers=2, batches=120)
    record = _record(tmp_path / "train.py")
    record = replace(record, settings=replace(record.settings, dataloaders=(validation, training)),
                     steps=tuple(Step(index=i, batches=1) for i in range(12)))
    diagnosis = Diagnosis(verdict=Verdict(category="input", headline="h"), facts=(Fact("suggested_num_workers", 1),),
                          findings=(_finding("dataloader-workers-restart-each-epoch", "persistent_workers"),))
    candidates, decided, answers = plan_candidates(record, diagnosis)
    assert "dataloader-workers-restart-each-epoch" not in decided
    assert answers["dataloader-workers-restart-each-epoch"] == [c.key for c in candidates] == ["persistent_workers"]
