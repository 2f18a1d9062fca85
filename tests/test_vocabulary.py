"""One vocabulary: every phase a step has is named once, and every table of phases covers it.

A phase added to ``record.Step`` must be classified here (a phase of the step, or not one); once
it is a phase, each module that lists phases (the clock, the step codec, the trace's reader, the
facts, the verdict's split, the report) must know it, or these tests fail.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import recorded
from trainprobe import vocabulary
from trainprobe.engine.verdict import breakdown
from trainprobe.facts import steps as step_facts
from trainprobe.findings import CATEGORIES
from trainprobe.probe import clock as clock_module
from trainprobe.probe.clock import StepClock
from trainprobe.probe.config import WindowPlan
from trainprobe.probe.stepcodec import STEP_FIELDS, step_fields
from trainprobe.record import Step
from trainprobe.report.sections import PHASES as REPORT_PHASES, breakdown_section
from trainprobe.trace import summarize
from trainprobe.vocabulary import INNER_PHASE_NAMES, PHASE, PHASE_NAMES, PHASES, TIMED_PHASE_NAMES

# Fields of record.Step that are not seconds spent in a part of the step. A new field must be put
# here or in the vocabulary: the first test fails until it is.
NOT_PHASES = {
    "index", "start", "duration", "probe", "phase", "boundary", "batches", "samples", "epoch_start",
    "validation", "gpu_busy", "updates", "lr",
    "data_wait_cpu", "data_receive",  # seconds inside data_wait, not beside it
}

ANOMALY_RUN = recorded.RUNS_DIR / "anomaly_detection_left_on.cpu.run.json"  # debug time is non-zero


def test_every_phase_of_a_step_is_in_the_vocabulary():
    fields = {f.name for f in dataclasses.fields(Step)}
    unclassified = fields - NOT_PHASES - set(PHASE)
    assert not unclassified, f"record.Step fields neither a phase in vocabulary.py nor listed in NOT_PHASES: {unclassified}"
    assert set(PHASE) <= fields, "a vocabulary phase that record.Step does not hold"
    assert not NOT_PHASES & set(PHASE)


def test_the_phases_add_up_to_the_step_on_every_recorded_run():
    """PHASES are a partition: their seconds are the step's duration (``other`` is the rest), so a
    phase the clock times beside the others cannot be left out of the vocabulary unnoticed."""
    for path in recorded.GALLERY_RUNS:
        for step in recorded.load(path).steps:
            if step.other > 0:  # a step whose timed phases overran it by rounding has other clipped at 0
                assert sum(getattr(step, p) for p in PHASE_NAMES) == pytest.approx(step.duration, abs=1e-6), path.name


def test_each_phase_has_words_a_colour_and_a_verdict_category():
    assert PHASE_NAMES == tuple(p.name for p in PHASES) and len(set(PHASE_NAMES)) == len(PHASE_NAMES)
    assert PHASE_NAMES[-1] == "other" and set(TIMED_PHASE_NAMES) == set(PHASE_NAMES) - {"other"}
    for phase in PHASE.values():
        assert phase.cause in CATEGORIES, phase
        assert phase.label and phase.doing and phase.colour.startswith("#"), phase
    assert len({p.colour for p in PHASES}) == len(PHASES), "two phases of one step share a colour"


def test_the_categories_are_the_verdicts_as_they_were():
    """The verdict of every recorded run depends on these: data wait is input, the copy is copy."""
    assert vocabulary.CATEGORIES == CATEGORIES
    expected = {"data_wait": "input", "h2d": "copy", "forward": "compute", "backward": "compute",
                "optimizer": "compute", "eval": "compute", "debug": "host", "other": "host", "zero_grad": "host"}
    assert {name: vocabulary.cause_of(name) for name in expected} == expected
    assert vocabulary.cause_of("no-such-phase") == "host"


def test_the_step_codec_carries_every_phase():
    assert set(PHASE) <= set(STEP_FIELDS)


def test_the_clock_times_every_phase_and_emits_it():
    """Each timed phase, entered for its own length of time, comes out of the clock in its own field,
    and ``other`` is the rest of the step."""
    assert set(TIMED_PHASE_NAMES) | set(INNER_PHASE_NAMES) <= set(clock_module.PHASES)
    now = [100.0]
    events = []
    clock = StepClock(WindowPlan(warmup_steps=2, steady_min_steps=1000, steady_max_steps=10**6, max_seconds=None),
                      t0=100.0, emit=lambda kind, **d: events.append((kind, d)), on_window=lambda *_: None,
                      now=lambda: now[0])
    spent = {}
    clock.on_fetch("train")
    for k, name in enumerate(TIMED_PHASE_NAMES + INNER_PHASE_NAMES):
        spent[name] = 0.001 * (k + 1)
        clock.enter(name)
        now[0] += spent[name]
        clock.exit(name)
    now[0] += 0.05  # the loop's own code
    clock.on_backward()
    clock.on_optimizer_step("opt")
    clock.on_fetch("train")
    (step,) = [step_fields(d) for kind, d in events if kind == "step"]
    for name, seconds in spent.items():
        assert step[name] == pytest.approx(seconds), name
    inner = sum(spent[name] for name in INNER_PHASE_NAMES)
    assert step["other"] == pytest.approx(0.05 + inner)
    assert sum(step[name] for name in PHASE_NAMES) == pytest.approx(step["duration"])


def test_the_trace_reader_fills_every_timed_phase():
    assert set(summarize._PHASE_FIELDS) == set(TIMED_PHASE_NAMES) | set(INNER_PHASE_NAMES)  # pylint: disable=protected-access


def test_the_facts_describe_and_compute_every_phase():
    _, diagnosis = recorded.diagnosed(ANOMALY_RUN)
    values = diagnosis.fact_values()
    for name in PHASE_NAMES:
        for fact in (f"{name}_share", f"{name}_per_step", f"warmup_{name}_per_step"):
            assert fact in step_facts.FACTS, f"facts/steps.py has no catalog entry for {fact}"
            assert values.get(fact) is not None, fact


@pytest.mark.parametrize("phase", PHASES, ids=lambda p: p.name)
def test_the_verdicts_split_counts_every_phase_in_its_category(phase):
    facts = {"steady_steps": 20, "step_time": 0.1, f"{phase.name}_share": 1.0}
    assert breakdown(facts) == {**dict.fromkeys(breakdown(facts), 0.0), phase.cause: 1.0}


def test_the_report_shows_every_phase_with_the_vocabularys_words():
    assert [(n, label, colour) for n, label, colour in REPORT_PHASES] == [(p.name, p.label, p.colour) for p in PHASES]
    _, diagnosis = recorded.diagnosed(ANOMALY_RUN)
    rows = breakdown_section(diagnosis)["rows"]
    assert [(r["name"], r["label"], r["color"]) for r in rows] == [(p.name, p.label, p.colour) for p in PHASES]


def test_the_window_defaults_come_from_the_vocabulary():
    from trainprobe.commands.diagnose import diagnose
    from trainprobe.notebook.magic import parse_options
    from trainprobe.notebook.measure import measure

    plan = WindowPlan()
    assert (plan.max_seconds, plan.warmup_steps, plan.steady_seconds) == (
        vocabulary.DEFAULT_MAX_SECONDS, vocabulary.DEFAULT_WARMUP_STEPS, vocabulary.DEFAULT_WINDOW_SECONDS)
    expected = {"max_seconds": vocabulary.DEFAULT_MAX_SECONDS, "warmup_steps": vocabulary.DEFAULT_WARMUP_STEPS,
                "window": vocabulary.DEFAULT_WINDOW_SECONDS}
    cli = {p.name: p.default for p in diagnose.params}
    magic = parse_options("")
    signature = inspect.signature(measure.__init__).parameters
    for name, value in expected.items():
        assert cli[name] == value and magic[name] == value and signature[name].default == value, name


def test_the_vocabulary_is_the_bottom_layer():
    source = inspect.getsource(vocabulary)
    assert "from ." not in source and "import trainprobe" not in source
