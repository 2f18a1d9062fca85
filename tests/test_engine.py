"""The rule engine: loading, the sandboxed language, evaluation errors, ranking, the verdict."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from trainprobe import engine
from trainprobe.findings import CATEGORIES, Diagnosis, Finding, Gain
from trainprobe.engine import apply_rules as diagnose, load_rules, rank_findings
from trainprobe.engine.expr import Missing, RuleSyntaxError, compile_expression
from trainprobe.facts import FACT_CATALOG
from trainprobe.record import RunRecord

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.records import (cpu_record, gpu_record, with_env, with_loader, with_outcome, with_settings,  # noqa: E402
                                with_steps)

NAMES = tuple(FACT_CATALOG)

MINIMAL_RULE = '''
id = "{id}"
name = "A test rule"
category = "host"
severity = "warning"
condition = "{condition}"
title = "step takes {{{{ step_time_median|secs }}}}"
message = "The step took {{{{ step_time_median|secs }}}}."
advice = "Do less."

[options]
max_step = 0.01

[docs]
what = "w"
why = "y"
evidence = "e"
fix = "f"
options = "o"
references = ["https://example.org"]
'''


def write_rule(folder: Path, rule_id: str, condition: str = "step_time_median > opt.max_step",
               text: str | None = None) -> Path:
    path = folder / f"{rule_id}.toml"
    path.write_text(text if text is not None else
                    MINIMAL_RULE.format(id=rule_id, condition=condition), encoding="utf-8")
    return path


def evaluate(source: str, **values):
    context = {name: Missing(name=name) for name in NAMES}
    context.update(values)
    context["opt"] = {}
    return compile_expression(source, NAMES, ()).evaluate(context)


# --- the expression language --------------------------------------------------------------

def test_missing_facts_make_comparisons_false():
    assert evaluate("data_wait_share > 0.1") is False
    assert evaluate("data_wait_share < 0.1") is False
    assert evaluate("data_wait_share != 0.1") is False
    assert evaluate("pin_memory == false") is False
    assert evaluate("known(data_wait_share)") is False
    assert evaluate("data_wait_share is defined") is False
    assert evaluate("data_wait_share * 2 > 0") is False
    assert evaluate("max(data_wait_share, 1) > 0") is False
    assert evaluate("optimizer_type.startswith('Adam')") is not True


def test_known_facts_evaluate_normally():
    assert evaluate("data_wait_share > 0.1", data_wait_share=0.5) is True
    assert evaluate("max(1, 2) + min(3, 4)") == 5
    assert evaluate("clamp(data_wait_share, 0, 0.2)", data_wait_share=0.5) == 0.2
    assert evaluate("optimizer_type in ['Adam', 'AdamW']", optimizer_type="Adam") is True
    assert evaluate("1 if cuda_used else 2", cuda_used=False) == 2


@pytest.mark.parametrize("source", [
    "().__class__.__bases__",
    "step_time_median.__class__",
    "opt._private",
    "optimizer_type['__class__']",
])
def test_sandbox_refuses_private_attributes_at_load(source):
    with pytest.raises(RuleSyntaxError, match="not allowed"):
        compile_expression(source, NAMES, ())


def test_sandbox_refuses_private_attributes_at_run_time():
    # Built around the load-time check: the sandbox itself still refuses.
    from jinja2.exceptions import SecurityError
    from trainprobe.engine.expr import ENV
    fn = ENV.compile_expression("x.__class__.__bases__", undefined_to_none=False)
    with pytest.raises(SecurityError):
        bool(fn(x=()))
    with pytest.raises(RuleSyntaxError, match="attr"):
        compile_expression("optimizer_type|attr('__class__')", NAMES, ())


def test_unknown_names_are_refused_at_load():
    with pytest.raises(RuleSyntaxError, match="unknown name: data_wiat_share"):
        compile_expression("data_wiat_share > 0.1", NAMES, ())
    with pytest.raises(RuleSyntaxError, match="opt.nope is not declared"):
        compile_expression("data_wait_share > opt.nope", NAMES, ("min_share",))
    with pytest.raises(RuleSyntaxError, match="unknown name: open"):
        compile_expression("open('/etc/passwd')", NAMES, ())


def test_bad_syntax_is_refused_at_load():
    with pytest.raises(RuleSyntaxError, match="bad expression"):
        compile_expression("data_wait_share >", NAMES, ())
    with pytest.raises(RuleSyntaxError, match="bad expression"):
        compile_expression("data_wait_share > 1 }} {{ 2", NAMES, ())


def test_huge_powers_are_refused():
    with pytest.raises(ValueError, match="exponent"):
        evaluate("2 ** 100000000")


# --- loading rule files ---------------------------------------------------------------------

def test_builtin_rules_load_without_errors():
    rules, errors = load_rules()
    assert errors == []
    assert len(rules) >= 30


def test_a_user_rule_folder_adds_rules(tmp_path):
    write_rule(tmp_path, "my-slow-step")
    rules, errors = load_rules([tmp_path])
    assert errors == []
    assert "my-slow-step" in {r.id for r in rules}
    findings = diagnose(cpu_record(), [tmp_path]).findings
    mine = next(f for f in findings if f.id == "my-slow-step")
    assert mine.message == "The step took 120 ms."
    assert mine.source == str(tmp_path / "my-slow-step.toml")


def test_a_user_rule_with_a_builtin_id_replaces_it(tmp_path):
    write_rule(tmp_path, "no-lr-schedule", condition="step_time_median > 0")
    rules, _ = load_rules([tmp_path])
    replaced = [r for r in rules if r.id == "no-lr-schedule"]
    assert len(replaced) == 1 and replaced[0].source.startswith(str(tmp_path))


def test_toml_errors_name_file_and_line(tmp_path):
    path = write_rule(tmp_path, "broken", text='id = "broken"\nname = "x"\ncategory = = "host"\n')
    rules, errors = load_rules([tmp_path])
    assert len(errors) == 1
    assert errors[0].startswith(f"{path}:3: not valid TOML")
    assert len(rules) >= 30  # the others still load


@pytest.mark.parametrize("change, line_key, problem", [
    (("severity = \"warning\"", "severity = \"urgent\""), "severity", "unknown severity 'urgent'"),
    (("category = \"host\"", "category = \"gpu\""), "category", "unknown category 'gpu'"),
    (("condition = \"step_time_median > opt.max_step\"", "condition = \"step_time_median >\""),
     "condition", "bad expression"),
    (("condition = \"step_time_median > opt.max_step\"", "condition = \"step_tme > 1\""),
     "condition", "unknown name: step_tme"),
    (("advice = \"Do less.\"", "advice = \"{{ oops \""), "advice", "bad template"),
    # Texts are compiled when first rendered: what compiling checks is checked when the rule loads.
    (("advice = \"Do less.\"", "advice = \"{% if step_time %}{{ step_time|sceonds }}{% endif %}\""), "advice",
     "No filter named 'sceonds'"),
    (("fix = \"f\"", "fix = \"\""), "fix", "docs section 'fix' is missing or empty"),
    (("id = \"bad-rule\"", "id = \"other-id\""), "id", "does not match the file name"),
    (("name = \"A test rule\"", "nmae = \"A test rule\""), "nmae", "unknown key 'nmae'"),
])
def test_schema_errors_name_file_line_and_problem(tmp_path, change, line_key, problem):
    text = MINIMAL_RULE.format(id="bad-rule", condition="step_time_median > opt.max_step")
    old, new = change
    assert old in text
    text = text.replace(old, new)
    path = write_rule(tmp_path, "bad-rule", text=text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(line_key))
    _, errors = load_rules([tmp_path])
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{path}:{line}: ")
    assert problem in errors[0]


def test_missing_required_key(tmp_path):
    text = MINIMAL_RULE.format(id="no-advice", condition="true").replace('advice = "Do less."\n', "")
    path = write_rule(tmp_path, "no-advice", text=text)
    _, errors = load_rules([tmp_path])
    assert errors == [f"{path}:1: missing required key 'advice'"]


def test_a_missing_folder_is_an_error_not_a_crash(tmp_path):
    _, errors = load_rules([tmp_path / "nope"])
    assert errors and "not a folder" in errors[0]


# --- evaluation -------------------------------------------------------------------------------

def test_a_rule_failing_at_run_time_is_a_rule_error_and_others_run(tmp_path):
    # A string compared with a number raises TypeError on this record only.
    write_rule(tmp_path, "type-clash", condition="optimizer_type > 1")
    write_rule(tmp_path, "works")
    result = diagnose(cpu_record(), [tmp_path])
    assert any(e.startswith(f"{tmp_path / 'type-clash.toml'}:") and "TypeError" in e
               for e in result.rule_errors)
    assert "works" in {f.id for f in result.findings}


def test_broken_rule_files_do_not_stop_diagnose(tmp_path):
    write_rule(tmp_path, "bad", text="this is not toml = = =")
    result = diagnose(with_settings(cpu_record(), schedulers=()), [tmp_path])
    assert isinstance(result, Diagnosis)
    assert len(result.rule_errors) == 1
    assert "no-lr-schedule" in {f.id for f in result.findings}


def test_gpu_only_rules_skip_cpu_runs(tmp_path):
    text = MINIMAL_RULE.format(id="gpu-rule", condition="true").replace(
        'severity = "warning"', 'severity = "warning"\ngpu_only = true')
    write_rule(tmp_path, "gpu-rule", text=text)
    assert "gpu-rule" not in {f.id for f in diagnose(cpu_record(), [tmp_path]).findings}
    assert "gpu-rule" in {f.id for f in diagnose(gpu_record(), [tmp_path]).findings}


def test_gain_becomes_seconds_and_speedup():
    record = with_steps(gpu_record(), data_wait=0.089)
    record = replace(record, settings=replace(record.settings, dataloaders=(
        replace(record.settings.dataloaders[0], num_workers=0),)))
    finding = next(f for f in diagnose(record).findings if f.id == "dataloader-too-few-workers")
    assert finding.gain.seconds_per_step == pytest.approx(0.089)
    assert finding.gain.speedup == pytest.approx(0.138 / (0.138 - 0.089))
    assert "faster steps" in finding.gain.text


def test_odd_records_never_raise():
    odd = [RunRecord(), replace(cpu_record(), steps=()), with_steps(cpu_record(), duration=0.0,
                                                                     data_wait=0.0, forward=0.0,
                                                                     backward=0.0, optimizer=0.0,
                                                                     other=0.0)]
    for record in odd:
        result = diagnose(record)
        assert result.rule_errors == ()
        assert result.verdict.category == "unknown"  # no step with a duration: no verdict


# --- ranking and the verdict -----------------------------------------------------------------

def _finding(fid: str, severity: str, gain: float | None, category: str = "host") -> Finding:
    return Finding(id=fid, name=fid, category=category, severity=severity, title=fid,
                   message="", advice="", gain=Gain(seconds_per_step=gain))


def test_ranking_by_gain_then_severity_infos_last():
    ranked = rank_findings([_finding("a", "info", 0.5), _finding("b", "warning", 0.01),
                            _finding("c", "critical", 0.01), _finding("d", "warning", 0.2),
                            _finding("e", "warning", None)])
    assert [f.id for f in ranked] == ["d", "c", "b", "e", "a"]


def test_severity_follows_the_ranking_by_gain():
    """A critical fix that recovers less than a warning above it reads as a warning: the list goes from
    the most to the least worth doing. Findings without a time gain keep their severity."""
    ranked = rank_findings([_finding("a", "info", 0.5), _finding("b", "warning", 0.01),
                            _finding("c", "critical", 0.01), _finding("d", "warning", 0.2),
                            _finding("e", "critical", None)])
    assert [(f.id, f.severity) for f in ranked] == [
        ("d", "warning"), ("c", "warning"), ("b", "warning"), ("e", "critical"), ("a", "info")]


def test_a_fix_that_comes_after_another_is_listed_as_its_follow_up():
    def after(f, lead):
        return replace(f, after=lead, gain=replace(f.gain, text="about 2× faster steps"))

    lead = _finding("workers", "warning", 0.02, "input")
    other = _finding("other", "warning", 0.03)
    follow = after(_finding("transforms", "warning", 0.05, "input"), "workers")
    ranked = rank_findings([follow, other, lead])
    assert [(f.id, f.severity, f.after) for f in ranked] == [
        ("other", "warning", None), ("workers", "warning", None), ("transforms", "info", "workers")]
    assert ranked[2].gain.text == "about 2× faster steps, estimated on its own; do it after “workers”"
    assert rank_findings(ranked) == ranked  # ranking again (after the gains' intervals) changes nothing
    # A lead that would not pay (info) leads nothing: the fix stands on its own, ranked by its gain.
    alone = rank_findings([follow, other, replace(lead, severity="info")])
    assert [(f.id, f.severity, f.after) for f in alone] == [
        ("transforms", "warning", None), ("other", "warning", None), ("workers", "info", None)]


def test_a_fix_too_small_to_pay_is_info_whatever_its_rule_says(tmp_path):
    text = MINIMAL_RULE.format(id="tiny-fix", condition="true").replace(
        'severity = "warning"', 'severity = "critical"').replace(
        'advice = "Do less."', 'advice = "{{ \'not worth it\' if severity == \'info\' else \'do it\' }}"\n'
                               'gain = "step_time * opt.share"').replace("max_step = 0.01", "share = 0.01")
    write_rule(tmp_path, "tiny-fix", text=text)
    rule = next(r for r in load_rules([tmp_path])[0] if r.id == "tiny-fix")
    values = engine.apply_rules(cpu_record()).fact_values()
    small = engine.evaluate_rule(rule, values)
    assert small.severity == "info" and small.advice == "not worth it"  # the template saw the severity shown
    big = engine.evaluate_rule(replace(rule, options={"share": 0.2}), values)
    assert big.severity == "critical" and big.advice == "do it"


def test_a_severity_may_follow_the_gain(tmp_path):
    text = MINIMAL_RULE.format(id="gain-severity", condition="true").replace(
        "[options]", '[severity_when]\ncritical = "gain_seconds >= step_time * 0.5"\n\n[options]').replace(
        'advice = "Do less."', 'advice = "Do less."\ngain = "step_time * opt.share"').replace(
        "max_step = 0.01", "share = 0.6")
    write_rule(tmp_path, "gain-severity", text=text)
    rules, errors = load_rules([tmp_path])
    assert errors == []
    rule = next(r for r in rules if r.id == "gain-severity")
    values = engine.apply_rules(cpu_record()).fact_values()
    assert engine.evaluate_rule(rule, values).severity == "critical"
    assert engine.evaluate_rule(replace(rule, options={"share": 0.2}), values).severity == "warning"


def test_a_class_that_holds_the_step_without_a_lead_finding_names_what_the_findings_below_say():
    from trainprobe.engine.verdict import make_verdict

    facts = {"steady_steps": 10, "step_time": 0.1, "data_wait_share": 0.9, "forward_share": 0.1,
             "other_share": 0.0}
    small = replace(_finding("slow-fix", "info", 0.002, "input"), gain=Gain(seconds_per_step=0.002, speedup=1.02,
                                                                             base=0.1))
    assert make_verdict(facts, [small]).headline == (
        "90% of the step is spent waiting for data; the 1 finding below names its causes, but fixing it would "
        "recover little of it here.")
    assert make_verdict(facts, []).headline == (
        "90% of the step is spent waiting for data, but no rule found a specific cause.")


def test_verdict_of_a_clean_run_is_compute():
    for record in (gpu_record(), cpu_record()):
        verdict = diagnose(record).verdict
        assert verdict.category == "compute"
        assert "busy with the model's math" in verdict.headline
        assert sum(verdict.breakdown.values()) == pytest.approx(1.0, abs=1e-3)


def test_verdict_names_the_top_finding():
    record = with_steps(gpu_record(), data_wait=0.089)
    record = replace(record, settings=replace(record.settings, dataloaders=(
        replace(record.settings.dataloaders[0], num_workers=0),)))
    verdict = diagnose(record).verdict
    assert verdict.category == "input"
    assert verdict.primary_finding == "dataloader-too-few-workers"
    assert verdict.headline.startswith("The GPU waits for data 64% of every step.")
    assert verdict.breakdown["input"] == pytest.approx(0.089 / 0.138, abs=1e-3)


def test_no_steps_gives_unknown_with_the_reason():
    crashed = with_outcome(replace(gpu_record(), steps=()), status="failed", oom=True)
    result = diagnose(crashed)
    assert result.verdict.category == "unknown"
    assert "out of memory" in result.verdict.headline
    assert [f.id for f in result.findings] == ["memory-near-limit"]
    assert result.verdict.primary_finding == "memory-near-limit"
    never = diagnose(RunRecord())
    assert never.verdict.category == "unknown" and never.findings == ()


def test_breakdown_moves_sync_out_of_host():
    record = with_steps(gpu_record(), other=0.012)
    record = replace(record, profiler=replace(record.profiler, sync_time_per_step=0.01))
    split = engine.breakdown({f.name: f.value for f in diagnose(record).facts})
    assert split["sync"] == pytest.approx(0.01 / 0.06, abs=1e-3)
    assert split["host"] == pytest.approx(0.002 / 0.06, abs=1e-3)


def test_engine_public_surface():
    for name in engine.__all__:
        assert hasattr(engine, name)
    assert {"load_rules", "apply_rules", "judge_job"} <= set(engine.__all__)


@pytest.mark.parametrize("old, new, line_key, problem", [
    ('[severity_when]\n', '[severity_when]\nwarning = 3\n', "warning", "must be a string"),
    ('what = "w"', 'what = 5', "what", "docs section 'what'"),
    ('references = ["https://example.org"]', 'references = "https://example.org"', "references",
     "a list of links"),
])
def test_values_of_the_wrong_type_are_errors_not_crashes(tmp_path, old, new, line_key, problem):
    text = MINIMAL_RULE.format(id="odd-types", condition="true")
    text = text.replace("[options]", "[severity_when]\n\n[options]")
    assert old in text
    text = text.replace(old, new)
    path = write_rule(tmp_path, "odd-types", text=text)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith(line_key))
    _, errors = load_rules([tmp_path])
    assert len(errors) == 1 and errors[0].startswith(f"{path}:{line}: ") and problem in errors[0]


def test_the_error_names_the_exact_line(tmp_path):
    text = MINIMAL_RULE.format(id="lines", condition="true").replace(
        'severity = "warning"', 'severity = "loud"')
    path = write_rule(tmp_path, "lines", text=text)
    _, errors = load_rules([tmp_path])
    assert errors == [f"{path}:5: unknown severity 'loud' (one of info, warning, critical)"]


# --- how firmly the steps support the verdict ---------------------------------------------------

def _waits(waits, warmup=None):
    """The CPU record with one steady step per value of ``waits`` (seconds waiting for data); its math
    runs on one thread, so workers on the other cores take nothing from it. ``warmup``: keep only its
    first that many warm-up steps (a short run: its warm-up steps after the first count as steady)."""
    record = with_loader(with_env(cpu_record(), usable_cores=4, logical_cores=4), num_workers=0)
    record = with_settings(record, torch_threads=1)
    steady = [s for s in record.steps if s.phase == "steady"]
    rest = [s for s in record.steps if s.phase != "steady"]
    if warmup is not None:
        rest = [s for s in rest if s.phase != "warmup"] + [s for s in rest if s.phase == "warmup"][:warmup]
    steps = []
    for i, wait in enumerate(waits):
        s = steady[i % len(steady)]
        steps.append(replace(s, index=len(rest) + i, data_wait=wait, duration=s.duration - s.data_wait + wait))
    return replace(record, steps=tuple(rest + steps))


def test_a_clear_verdict_is_agreed_by_every_resample():
    result = diagnose(_waits([0.12] * 40))  # every step waits about as long as it works
    assert result.verdict.category == "input"
    assert result.verdict.agreement == 1.0 and not result.verdict.borderline
    assert result.verdict.share_low <= result.verdict.breakdown["input"] <= result.verdict.share_high


def test_a_verdict_that_rests_on_a_few_steps_near_a_threshold_is_borderline():
    # Most steps do not wait at all; a few wait long: whether the run is input-bound depends on how
    # many of those few a run happens to catch.
    # (Waits of 0.3 s: at 0.2 s the input share is a ninth of the step, and the model's math outweighs it.)
    result = diagnose(_waits([0.0] * 37 + [0.3] * 3))
    v = result.verdict
    assert v.agreement is not None and v.agreement < 0.8 and v.borderline
    assert v.alternative is not None and v.alternative != v.category
    assert v.headline.startswith("Borderline: ")
    assert v.share_low < v.share_high


def test_resamples_that_give_the_same_facts_are_decided_once():
    """The rules and the verdict are a pure function of the facts: a resample whose facts an earlier one
    gave again reuses its outcome (steps alike in every figure give one set of facts for all)."""
    from trainprobe.engine.evaluate import evaluate_rules
    from trainprobe.engine.stability import RESAMPLES, stability
    from trainprobe.engine.verdict import make_verdict
    from trainprobe.facts import compute_facts, facts_by_name
    rules, _ = load_rules()

    def counted(record):
        calls = []

        def decide(values):
            calls.append(1)
            found, _ = evaluate_rules(rules, values, render=False)
            found = rank_findings(found)
            return make_verdict(values, found), found
        values = facts_by_name(compute_facts(record))
        verdict, _ = decide(values)
        return stability(record, values, verdict, decide), len(calls) - 1

    alike, calls = counted(_waits([0.12] * 40))
    assert calls == 1 and alike.agreement == 1.0
    spread, calls = counted(_waits([0.001 * i for i in range(40)]))  # every step its own wait
    assert calls == RESAMPLES and spread.agreement is not None


def test_fewer_than_the_fewest_steps_are_not_resampled():
    result = diagnose(_waits([0.12], warmup=1))
    assert result.verdict.agreement is None and result.verdict.category == "unknown"


def test_too_few_steady_steps_give_no_verdict_and_say_what_would_give_more():
    record = _waits([0.5], warmup=1)
    result = diagnose(record)
    assert result.verdict.category == "unknown" and result.verdict.breakdown == {}
    assert result.verdict.headline.startswith(
        "Not enough steps to judge where the time goes: 1 measured after warm-up, and at least 3 are needed (two "
        "when each alone puts one class at 75% of the step or more; 5 to settle a close call)")
    assert all(BY_RULE[f.id].without_steps for f in result.findings)
    slow = diagnose(with_outcome(_waits([3.0], warmup=1), status="stopped"))
    assert "--max-seconds" in slow.verdict.headline
    ended = diagnose(with_outcome(_waits([0.5], warmup=1), status="completed"))
    assert "The script ended by itself after 2 training steps: give it at least 6 (more data, more epochs" \
        in ended.verdict.headline


def test_two_steps_are_judged_only_when_each_alone_puts_the_verdict_at_three_quarters_of_it():
    """Slow steps leave two measured ones in the default 90 s (test set 21's hifi-gan: 21 s steps, 98% forward
    and backward in each). Two steps that each wait 81% of their time are input-bound whatever a third does;
    two that wait half of it could tilt either way, and two that disagree settle nothing."""
    alike = diagnose(_waits([0.5] * 2, warmup=1)).verdict
    assert alike.category == "input" and alike.agreement == 1.0 and alike.share_low >= 0.75
    assert alike.headline.endswith("Judged from a short run: 2 measured after warm-up; each of them alone is "
                                   "input-bound, with 81% of its time or more there.")
    close = diagnose(_waits([0.12] * 2, warmup=1))
    assert close.verdict.category == "unknown" and close.verdict.breakdown == {}
    assert close.verdict.headline == (
        "Too few steps to settle where the time goes: 2 measured after warm-up, and each of them alone is "
        "input-bound, but with only 51% of its time there at the least (two steps settle a verdict from 75% in "
        "each).")
    # Its workers finding fires on each step alone (both wait 0.12 s): it stands, under no verdict.
    assert "dataloader-too-few-workers" in [f.id for f in close.findings]
    split = diagnose(_waits([0.5, 0.0], warmup=1))
    assert split.verdict.category == "unknown" and split.verdict.headline.endswith(
        "one of them alone is input-bound and the other compute-bound.")
    # A finding that reads the steps stands only when each step alone fires it (DECISIVE of the resamples).
    assert "dataloader-too-few-workers" not in [f.id for f in split.findings]


def test_a_short_run_whose_verdict_is_decisive_gets_it_and_says_what_it_rests_on():
    """Three steps that each wait as long as they work: every resample of them is input-bound."""
    result = diagnose(_waits([0.12] * 3, warmup=1))
    v = result.verdict
    assert v.category == "input" and v.agreement >= 0.95 and v.breakdown
    assert "Judged from a short run: 3 measured after warm-up; the verdict held on every resample of them." \
        in v.headline
    assert v.primary_finding in {f.id for f in result.findings}


def test_a_short_run_whose_verdict_is_not_decisive_gets_none_and_says_what_would_give_enough():
    """One of four steps waits long: whether the run is input-bound depends on how often a resample
    draws it, so four steps cannot settle it."""
    result = diagnose(with_outcome(_waits([0.0, 0.0, 0.0, 0.3], warmup=1), status="completed"))
    v = result.verdict
    assert v.category == "unknown" and v.breakdown == {} and v.agreement is None
    assert v.headline.startswith("Too few steps to settle where the time goes: 4 measured after warm-up, and "
                                 "resamples of them came out ")
    assert "The script ended by itself after 5 training steps: give it at least 6" in v.headline
    # A finding that reads the steps stands only when DECISIVE of the resamples fire it: the wait is
    # not one of them (a finding on the samplers' series, the same in every resample, may be).
    assert not any(f.category == "input" for f in result.findings), [f.id for f in result.findings]


def test_a_run_too_short_for_a_separate_warm_up_counts_its_warm_up_steps_after_the_first_and_says_so():
    """A script of five iterations ends while trainprobe is still warming up (a GAN's five batches):
    its steps after the first are measured steps, not 'no training step'."""
    record = _waits([], warmup=None)
    warm = [s for s in record.steps if s.phase == "warmup"][:1]
    later = [replace(warm[0], index=i, epoch_start=False, data_wait=0.12, duration=warm[0].duration + 0.12)
             for i in range(1, 5)]
    record = with_outcome(replace(record, steps=tuple(warm + later)), status="completed")
    record = replace(record, steps=tuple(replace(s, phase="warmup") for s in record.steps))
    result = diagnose(record)
    values = result.fact_values()
    assert values["steady_steps"] == 4 and values["steady_from_warmup"] == 4
    assert "never called backward" not in result.verdict.headline
    assert result.verdict.category == "input"
    assert "4 measured, 4 of them warm-up steps after the first, counted because the run was too short for a " \
           "separate warm-up" in result.verdict.headline
    # A warm-up step that paid a one-off cost (a recompilation) is not counted.
    slow = replace(record, steps=record.steps[:2] + (replace(record.steps[2], duration=10.0),) + record.steps[3:])
    assert diagnose(slow).fact_values()["steady_steps"] == 3


def test_a_slow_speed_test_whose_warm_up_took_two_of_its_four_steps_is_judged_from_three():
    """The issue's speed test: 4 batches, 2 of them warm-up, 2 measured after it: the second warm-up
    step counts, and three steps that each wait as long as they work are decisive."""
    record = with_outcome(_waits([0.12] * 2, warmup=2), status="completed")
    result = diagnose(record)
    values = result.fact_values()
    assert values["steady_steps"] == 3 and values["steady_from_warmup"] == 1
    assert result.verdict.category == "input"
    assert ("Judged from a short run: 3 measured, 1 of them a warm-up step after the first, counted because the "
            "run was too short for a separate warm-up") in result.verdict.headline


def test_steps_that_are_all_warm_up_and_too_few_never_read_as_no_step():
    record = with_outcome(_waits([], warmup=3), status="completed")
    record = replace(record, steps=record.steps[:2])
    result = diagnose(record)
    assert result.verdict.category == "unknown"
    assert result.verdict.headline.startswith("Not enough steps to judge where the time goes: 1 measured, 1 of them a "
                                              "warm-up step after the first")
    assert "give it at least 6" in result.verdict.headline


BY_RULE = {r.id: r for r in load_rules()[0]}


def test_a_gain_states_its_base_and_its_interval_over_resamples():
    result = diagnose(_waits([0.0, 0.1, 0.2, 0.15] * 10))
    finding = next(f for f in result.findings if f.id == "dataloader-too-few-workers")
    gain = finding.gain
    assert gain.base == pytest.approx(result.fact_values()["step_time"])
    assert gain.low is not None and gain.low < gain.seconds_per_step < gain.high
    assert f"mean step; 95% interval" in gain.text


def test_each_text_reads_the_names_jinjas_own_analysis_finds():
    """A text's names (the context it is given, and what the load-time check sees) are read from its parse
    tree without Jinja's code generator, which made loading the catalog take most of a second: for every
    text and expression of the catalog they are the names Jinja's analysis finds."""
    from jinja2.meta import find_undeclared_variables

    from trainprobe.engine.expr import ENV

    rules, errors = load_rules([])
    assert errors == [] and rules
    texts = []
    for rule in rules:
        texts += [rule.condition, rule.gain, rule.gain_base] + [e for _, e in rule.severity_when]
        texts += [getattr(rule, key) for key in ("title", "message", "advice", "snippet", "changes", "fix_id")]
        for variant in rule.variants:
            texts += [getattr(variant, key, None) for key in ("advice", "snippet", "changes", "when")]
    texts = [t for t in texts if t is not None]
    assert len(texts) > 500
    for text in texts:
        source = text.source if hasattr(text, "render") else "{{ " + text.source + " }}"
        assert set(text.names) == find_undeclared_variables(ENV.parse(source)), text.source
