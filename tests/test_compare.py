"""trainprobe compare's comparison, on the gallery's recorded runs: the unoptimized/optimized pair, the
same run twice, two halves of one run, and copies of a real run slowed down, cut short or given bigger
batches in the test. Each recorded run is diagnosed once per session (tests/recorded.py)."""

from __future__ import annotations

import dataclasses
import functools

import pytest

from recorded import RUNS_DIR, diagnosed, load
from trainprobe.compare import CompareError, Comparison, LoadedRun, compare_runs, gate, render_page
from trainprobe.compare.bootstrap import speedup_interval
from trainprobe.compare.inputs import load_runs
from trainprobe.compare.losses import LOSS_TOLERANCE
from trainprobe.engine import apply_rules as diagnose
from trainprobe.facts.window import steady_steps
from trainprobe.findings import Diagnosis, Trial, Verdict, WhatIf
from trainprobe.record import RunRecord

UNOPTIMIZED = RUNS_DIR / "compare" / "cifar_resnet_unoptimized.cpu.run.json"
OPTIMIZED = RUNS_DIR / "compare" / "cifar_resnet_optimized.cpu.run.json"
CRASH = RUNS_DIR / "crash_loop.cpu.run.json"


def loaded(path, label=None) -> LoadedRun:
    record, diagnosis = diagnosed(path)
    return LoadedRun(label=label or path.name.removesuffix(".run.json"), path=path, record=record, diagnosis=diagnosis)


def scaled(record: RunRecord, factor: float) -> RunRecord:
    """The same run with every step (and each of its phases) ``factor`` times as long."""
    timed = ("duration", "data_wait", "h2d", "forward", "backward", "optimizer", "zero_grad", "eval", "other",
             "debug")
    steps = tuple(dataclasses.replace(s, **{f: getattr(s, f) * factor for f in timed}) for s in record.steps)
    return dataclasses.replace(record, steps=steps)


@functools.cache
def slowed() -> tuple[RunRecord, Diagnosis]:
    """The unoptimized run with every step 1.3 times as long, diagnosed once."""
    record = scaled(load(UNOPTIMIZED), 1.3)
    return record, diagnose(record)


@functools.cache
def pair() -> Comparison:
    return compare_runs([loaded(UNOPTIMIZED), loaded(OPTIMIZED)])


def test_the_gallery_pair_shows_the_speedup_with_its_interval_and_the_settings_that_changed():
    c = pair()
    cand = c.candidates[0]
    facts = {run: diagnosed(path)[1].fact_values() for run, path in (("base", UNOPTIMIZED), ("cand", OPTIMIZED))}
    # same batch size: steps/s, and the point estimate is the ratio of the step_time facts
    assert c.basis == "steps"
    assert cand.speedup == pytest.approx(facts["base"]["step_time"] / facts["cand"]["step_time"])
    assert 1.0 < cand.low < cand.speedup < cand.high and cand.conclusion == "faster"
    changed = {s.name: (s.baseline, s.candidate) for s in cand.settings_changed}
    assert changed["num_workers"] == (0, 1)
    assert changed["persistent_workers"] == (False, True)
    assert changed["optimizer_type"] == ("SGD", "AdamW")
    assert changed["channels_last"] == (False, True)
    assert "torch" not in changed and "machine" not in changed  # same machine, same torch
    assert any(f.startswith("different scripts") for f in cand.flags)
    assert "dataloader-too-few-workers" in cand.resolved and "item-sync-in-loop" in cand.new
    # the phases are the facts' figures, and the one that moved most is named
    assert c.baseline.phases["backward"] == facts["base"]["backward_per_step"]
    most = next(p for p in cand.phases if p.phase == cand.changed_most)
    assert all(abs(p.delta or 0) <= abs(most.delta) for p in cand.phases)
    assert [r.verdict for r in c.runs] == ["compute", "compute"]


def test_the_same_run_twice_is_inconclusive_and_passes_the_gate():
    c = compare_runs([loaded(OPTIMIZED, "a"), loaded(OPTIMIZED, "b")])
    cand = c.candidates[0]
    assert cand.speedup == pytest.approx(1.0) and cand.low < 1.0 < cand.high
    assert cand.conclusion == "inconclusive" and cand.settings_changed == () and cand.flags == ()
    assert not gate(c, 10).failed and "inconclusive" in gate(c, 0).message


def test_two_halves_of_one_run_hold_1_in_their_interval():
    steps = [s.duration for s in steady_steps(load(OPTIMIZED))]
    interval = speedup_interval(steps[0::2], steps[1::2])  # every other step: the same run, twice
    assert interval.low < 1.0 < interval.high
    # Its first and second halves are not: this run sped up by 6% as it went (1.02-1.10 with 95%
    # confidence). The bootstrap takes a run's steps as exchangeable; drift within a run is not modelled.
    half = len(steps) // 2
    drift = speedup_interval(steps[:half], steps[half:])
    assert 1.0 < drift.low and drift.point == pytest.approx(1.058, abs=0.001)


def test_the_bootstrap_is_deterministic():
    steps = [s.duration for s in steady_steps(load(UNOPTIMIZED))]
    assert speedup_interval(steps, steps[::-1]) == speedup_interval(steps, steps[::-1])


def test_a_copy_slowed_by_30_percent_fails_a_10_percent_gate():
    record, diagnosis = slowed()
    c = compare_runs([loaded(UNOPTIMIZED), LoadedRun("slowed", UNOPTIMIZED, record, diagnosis)])
    cand = c.candidates[0]
    assert cand.speedup == pytest.approx(1 / 1.3) and cand.conclusion == "slower"
    result = gate(c, 10)
    assert result.failed and result.failing == ("slowed",)
    assert "slower than the baseline by more than 10%" in result.message
    assert not gate(c, 40).failed  # 30% slower is not more than 40% slower


def test_a_crashed_run_is_compared_on_its_measured_steps_and_flagged():
    crash = load(CRASH)
    record = dataclasses.replace(load(OPTIMIZED), outcome=crash.outcome)
    run = LoadedRun("crashed", OPTIMIZED, record, diagnosed(OPTIMIZED)[1])
    c = compare_runs([loaded(UNOPTIMIZED), run])
    assert c.runs[1].crashed and c.runs[1].status == "failed"
    assert any("crashed failed: it is compared on the 33 steady steps it measured" in f for f in c.candidates[0].flags)


def test_runs_from_another_machine_and_torch_are_flagged():
    base = load(OPTIMIZED)
    elsewhere = dataclasses.replace(base, environment=dataclasses.replace(
        base.environment, hostname_hash="0123456789ab", cpu_model="Intel Xeon", torch="2.5.0+cu124"))
    c = compare_runs([loaded(OPTIMIZED), LoadedRun("elsewhere", OPTIMIZED, elsewhere, diagnosed(OPTIMIZED)[1])])
    changed = {s.name: (s.baseline, s.candidate) for s in c.candidates[0].settings_changed}
    assert changed["torch"] == ("2.14.1+cu130", "2.5.0+cu124") and changed["device"] == ("AMD EPYC", "Intel Xeon")
    assert c.candidates[0].flags == (
        "different machines (device, machine (hashed host name) differ): part of the difference is the hardware, "
        "not the change", "different software (torch differs)")


def test_a_run_with_too_few_steady_steps_is_refused_in_one_sentence():
    # The crash cut short after 3 steps, all warm-up: the 2 after the first are all it measured (the full
    # recorded crash has 6 steps, 5 of them counted: window.borrowed_warmup).
    crash = load(CRASH)
    short = dataclasses.replace(crash, steps=crash.steps[:3])

    run = LoadedRun("crash_loop", CRASH, short, diagnose(short))
    with pytest.raises(CompareError) as exc:
        compare_runs([loaded(UNOPTIMIZED), run])
    assert str(exc.value) == ("too few steps to compare: crash_loop has 2 steady steps (at least 5 are needed); "
                              "the run failed after 3 recorded steps")


def test_bigger_batches_are_compared_per_sample():
    base = load(UNOPTIMIZED)
    doubled = dataclasses.replace(base, steps=tuple(dataclasses.replace(s, samples=(s.samples or 0) * 2)
                                                    for s in base.steps))
    # the doubled run's diagnosis is the base's with the batch facts of the doubled steps: only the
    # throughput basis is under test, and diagnosing again costs a second of the quick suite
    facts = tuple(dataclasses.replace(f, value=f.value * 2) if f.name in ("samples_per_step", "samples_per_second")
                  else f for f in diagnosed(UNOPTIMIZED)[1].facts)
    diagnosis = dataclasses.replace(diagnosed(UNOPTIMIZED)[1], facts=facts)
    c = compare_runs([loaded(UNOPTIMIZED), LoadedRun("doubled", UNOPTIMIZED, doubled, diagnosis)])
    assert c.basis == "samples" and c.candidates[0].speedup == pytest.approx(2.0)
    assert c.candidates[0].conclusion == "faster"


def test_the_class_view_ranks_every_run_and_names_the_slow_one():
    record, diagnosis = slowed()
    runs = [loaded(UNOPTIMIZED, "ada"), LoadedRun("bob", UNOPTIMIZED, record, diagnosis), loaded(OPTIMIZED, "cy")]
    c = compare_runs(runs)
    assert c.class_view and c.ranking == ("cy", "ada", "bob")
    assert [r.label for r in c.runs if r.slow_in_class] == ["bob"]  # 1.3× the median run (ada)


def test_the_loss_is_compared_where_a_what_if_recorded_it(tmp_path):
    def with_losses(name, losses):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "run.json").write_text(UNOPTIMIZED.read_text())
        whatif = WhatIf(trials=(Trial(index=0, label="baseline", losses=tuple(losses)),))
        Diagnosis(verdict=Verdict(category="unknown", headline=""), whatif=whatif).save(folder / "diagnosis.json")
        return folder

    plain = [2.3, 2.1, 1.9, 1.8]
    faster_but_different = [v * (1 + 3 * LOSS_TOLERANCE) for v in plain]
    cached = diagnosed(UNOPTIMIZED)[1]
    runs = load_runs([with_losses("base", plain), with_losses("same", plain), with_losses("off", faster_but_different)],
                     diagnose=lambda record: cached)
    c = compare_runs(runs)
    assert c.runs[0].loss.late_mean == pytest.approx(1.85) and c.runs[0].loss.n == 4
    assert [x.learns_differently for x in c.candidates] == [False, True]
    # without any loss, the comparison says so
    assert any("no loss recorded for any run" in note for note in pair().notes)
    assert pair().candidates[0].learns_differently is None


def test_the_page_shows_the_comparisons_figures():
    html = render_page(pair(), gate(pair(), 10))
    cand = pair().candidates[0]
    assert f"{cand.speedup:.2f}× faster than cifar_resnet_unoptimized" in html
    assert f"{cand.low:.2f}–{cand.high:.2f}" in html
    assert "num_workers" in html and "different scripts" in html and "gate passed" in html
    assert "<script" not in html.split('id="comparison"')[1].split("</script>")[1]  # one embedded JSON, no code


def test_a_comparison_round_trips_through_json(tmp_path):
    pair().save(tmp_path / "comparison.json")
    assert Comparison.load(tmp_path / "comparison.json") == pair()


def test_the_docs_show_the_real_output_for_the_gallery_pair():
    from pathlib import Path

    from trainprobe.compare import comparison_text

    readme = (Path(__file__).resolve().parents[1] / "docs" / "compare.md").read_text(encoding="utf-8")
    text = comparison_text(pair(), gate(pair(), 10), Path("trainprobe-compare/compare.html"), color=False)
    assert text in readme


@pytest.mark.parametrize("name", ["trainprobe.compare", "trainprobe.compare.compare", "trainprobe.compare.bootstrap",
                                  "trainprobe.compare.inputs", "trainprobe.compare.settings_diff",
                                  "trainprobe.compare.losses", "trainprobe.compare.fail_if_slower", "trainprobe.compare.views",
                                  "trainprobe.compare.terminal", "trainprobe.compare.page", "trainprobe.commands.compare"])
def test_every_exported_name_exists(name):
    import importlib

    module = importlib.import_module(name)
    assert module.__all__ and all(hasattr(module, attr) for attr in module.__all__)
