"""Runs of slow steps within the default --max-seconds 90: two measured steps judged when alike, and the time
to allow said as the clock plans it (test set 21's recorded runs, read again after their held-out scoring: a later
review, not a held-out result)."""

import recorded
from trainprobe.engine import apply_rules
from trainprobe.facts import compute_facts, facts_by_name

SET_21 = recorded.RUNS_DIR / "real_test21"


def test_a_vocoder_of_two_alike_21_s_steps_is_compute_bound():
    """hifi-gan's GAN step (V1 generator and both discriminators, batch 16 x 8192 samples): 5 steps in 125 s, one
    the first, one a validation pass, one an epoch's start; the other two each ~98% forward and backward. Held
    out: no verdict ('at least 3 are needed'); its expert: compute."""
    record = recorded.load(SET_21 / "t21_jik876_hifigan.cpu.run.json.gz")
    verdict = apply_rules(record).verdict
    assert verdict.category == "compute" and verdict.agreement == 1.0 and verdict.share_low >= 0.95
    assert "Judged from a short run: 2 measured, 1 of them a warm-up step after the first" in verdict.headline
    assert "each of them alone is compute-bound" in verdict.headline
    # --max-seconds stopped it before the op profile: the bf16 lever its expert measured (1.59x) was not judged,
    # and the headline says so, with the time the clock's plan needs for it (29.7 s + 13.8 steps of 21 s).
    assert facts_by_name(compute_facts(record))["unprofiled_time_limit"] is True
    assert ("--max-seconds stopped it before trainprobe could profile its ops, so the levers that read the op mix "
            "(bfloat16, torch.compile, the cost of calling each op) were not judged: allow about 320 s with "
            "--max-seconds to have them judged.") in verdict.headline


def test_one_77_s_step_asks_for_the_time_a_verdict_needs_not_twenty_steps():
    """descript-audio-codec's first step took 77 s and ended 80.5 s after launch: a verdict needs one more
    warm-up step and 5 measured ones (about 80.5 + 6 x 77 s), the op profiles 6 profiled steps more at up to
    1.3x; it asked for twenty steps' time (1540 s)."""
    record = recorded.load(SET_21 / "t21_descript_dac_baseline.cpu.run.json.gz")
    values = facts_by_name(compute_facts(record))
    assert round(values["time_to_first_step"], 1) == 80.5 and values["profiling_steps_planned"] == 6
    headline = apply_rules(record).verdict.headline
    assert headline.endswith("Its steps take about 1 min 17 s: allow more time with --max-seconds (about 550 s "
                             "for a verdict from 5 measured steps, about 1150 s for the op profiles as well).")


def test_a_hand_edited_plan_loses_only_the_profiling_figure():
    """A run.json edited by hand (a plan's "three" where a count belongs) must not take the step facts with it:
    they are one family, and an exception in it left every step fact unknown."""
    import dataclasses
    record = recorded.load(SET_21 / "t21_descript_dac_baseline.cpu.run.json.gz")
    plan = {**record.invocation.options["plan"], "profile_min_steps": "three", "cprofile_min_steps": None}
    edited = dataclasses.replace(record, invocation=dataclasses.replace(
        record.invocation, options={**record.invocation.options, "plan": plan}))
    values = facts_by_name(compute_facts(edited))
    assert values["profiling_steps_planned"] == 0 and round(values["warmup_step_time"]) == 77
    assert apply_rules(edited).verdict.headline.endswith(
        "allow more time with --max-seconds (about 550 s for a verdict from 5 measured steps).")


def test_the_report_says_the_time_limit_stopped_the_run():
    """hifi-gan's report said "stopped by trainprobe after its measurement window": --max-seconds stopped it, and
    its profiled windows never ran."""
    from trainprobe.report.sections import outcome_section
    record = recorded.load(SET_21 / "t21_jik876_hifigan.cpu.run.json.gz")
    assert record.outcome.time_limited
    assert outcome_section(record)["text"] == ("stopped by trainprobe at its time limit (--max-seconds), before its "
                                               "windows were all done")
    done = recorded.load(recorded.RUNS_DIR / "real_test22" / "t22_chemprop_training_nb.cpu.run.json.gz")
    assert done.outcome.status == "stopped" and not done.outcome.time_limited
    assert outcome_section(done)["text"] == "stopped by trainprobe after its measurement window"
