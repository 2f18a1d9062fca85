"""The compile what-if's cost: the warm-up it adds, when it pays back, and the ways it cannot be measured."""

from __future__ import annotations

from trainprobe.findings import Trial
from trainprobe.whatif.compile_cost import RunLength, compile_cost, compile_cost_text
from trainprobe.whatif.trials import compile_log, compile_storm


def _pair(base_step, fix_step, base_warmup, fix_warmup):
    base = Trial(label="baseline", step_time=base_step, warmup_time=base_warmup)
    fix = Trial(label="compile", fixes={"compile": True}, step_time=fix_step, warmup_time=fix_warmup)
    return base, fix


def test_the_compile_time_is_the_extra_warm_up_and_it_pays_back_after_the_steps_it_saves():
    pairs = [_pair(0.30, 0.20, 1.0, 41.0), _pair(0.31, 0.21, 1.2, 39.2), _pair(0.29, 0.19, 0.9, 40.9)]
    seconds, steps = compile_cost(pairs)
    assert abs(seconds - 40.0) < 1e-9  # the median extra warm-up
    assert abs(steps - 400.0) < 1e-6  # 40 s over 0.1 s saved a step
    text = compile_cost_text(pairs, RunLength(steps_per_epoch=200, total_steps=None))
    assert "compiling took about 40 s" in text and "pays back after about 400 steps (2 epochs of 200)" in text
    short = compile_cost_text(pairs, RunLength(steps_per_epoch=200, total_steps=150))
    assert "not worth it for this run of 150 steps" in short


def test_a_compile_that_saves_nothing_never_pays_back():
    pairs = [_pair(0.30, 0.31, 1.0, 30.0), _pair(0.30, 0.30, 1.0, 30.0)]
    assert compile_cost(pairs)[1] is None
    assert "never pays back" in compile_cost_text(pairs, RunLength())


def test_a_recompile_storm_is_no_figure_and_the_log_tail_is_kept(tmp_path):
    assert compile_storm({"compile": True}, 12) and compile_storm({"compile": True}, 1) is None
    assert compile_storm({"num_workers": 2}, 50) is None  # only a compiled trial's recompiles count
    (tmp_path / "script-output.log").write_text("\n".join(f"line {i}" for i in range(100)) + "\n")
    note = compile_log(tmp_path)
    kept = (tmp_path / "compile.log").read_text().splitlines()
    assert kept[0] == "line 70" and kept[-1] == "line 99" and str(tmp_path / "compile.log") in note
