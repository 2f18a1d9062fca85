"""Rank the findings, split the step into the verdict's classes and name the bottleneck.

The split (``breakdown``) maps the steady step's phases onto the classes so
that they add up to the step:

* each phase to its class, as ``vocabulary.PHASES`` says: ``data_wait`` ->
  input; ``h2d`` -> copy; forward + backward + optimizer (+ eval forwards
  inside training steps) -> compute; debugging aids and ``other`` (the loop's
  own code) -> host;
* of host, the measured sync time (``sync_time_per_step``) moves to sync, and
  the torch ops the loop ran outside the model's forward (``loop_op_share``)
  to compute. On a GPU run whose CPU issues work slower than the GPU runs it
  (``cpu_cuda_ratio`` > 1), the GPU's idle time not explained by the other
  classes moves from compute to launch. On a CPU-only run the fixed cost of
  calling ops (``dispatch_share``: Python, module calls and autograd's engine
  between the ops, and ops too small to amortize their call) moves from
  compute to launch, and compute means the CPU is busy with the model's math.

memory and communication have no share of the split: they come from findings
(an OOM, DataParallel, the allocator's page churn) only; a memory finding's
recoverable time lies inside the model's phases, and the math left beside it
names the verdict when it is the larger by ``_MATH_LEADS``. When the primary
finding's recoverable time is larger than its class's share (dispatch overhead
on a CPU-only run sits in the forward and backward phases), that time moves
from compute to its class.

The verdict's category is that of the top-ranked warning (or critical) finding
that recovers at least 5% of the steady step, or of a communication warning
(DataParallel) or critical memory finding (an OOM), which have no time share.
Findings outside the steady steps (validation without no_grad) or about
quality (no LR schedule) do not name it, and neither does a finding that a
larger share outweighs (``_led_by``). Without such a finding, the largest share
names it when it is a class other than compute holding 30% of the step or more,
with what the findings of that class below say; otherwise compute, the good
case ("the device is busy").

The headline agrees with the findings under it (tests/test_findings_agree.py
checks every recorded run): ranked by gain, a follow-up right after the fix it
follows, severity falling down the list. From fewer than MIN_STEADY_STEPS
steps the verdict stands only when it is decisive (``with_stability``), and
says what it rests on.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..findings import CATEGORIES, SEVERITIES, Finding, Verdict
from ..vocabulary import PHASES
from .. import display
from .evaluate import SIGNIFICANT_GAIN
from .stability import DECISIVE
from ..facts.window import (ALIKE_SHARE, FEWEST_STEPS, MIN_STEADY_STEPS, PROFILED_SLOWDOWN, enough_steps,
                            few_steps, firm_steps)

__all__ = ["breakdown", "rank_findings", "larger_lever_below", "make_verdict", "with_stability", "with_trace_cut",
           "near_peak", "NEAR_PEAK"]

_SHARE_TEXT = {
    "input": "spent waiting for data",
    "copy": "spent copying to the device",
    "host": "the loop's own code",
    "sync": "spent waiting in host-device syncs",
    "launch": "spent launching work rather than computing (kernel launches, or on a CPU the fixed cost of calling ops)",
    "communication": "spent in collective communication that nothing overlaps",
}

_DOMINANT = 0.3  # a class this large names the verdict even without a finding
_SIGNIFICANT = SIGNIFICANT_GAIN  # a finding must recover this share of the step to name the verdict
# ... unless another class outweighs it (_led_by). A class other than compute does when it holds a dominant
# share more than this many points above the finding's own class: the experts' rule, under which the
# largest share names the verdict and shares this close are both right. (It was: 3 times what the finding
# recovers. Over the 171 real-script expectations of the development set and test sets 1-14, 2026-11-27,
# the two rules differ on two: test set 14's Lightning notebook, host 36% beside a workers fix of 15% in
# input's 19%, and test set 3's Lightning DQN, host 72% beside launch 23%; both experts say host.)
_NEAR = 0.10
# The model's own math names the verdict over a fix of another class when it holds this many times what
# the fix recovers. Chosen on the seen sets and the development set (2026-11-27): at 3 the development
# set's loaded LSTM (expert: input; math 3.8x its 1.2x fix) turned compute; at 5 no seen verdict that was
# right turns wrong, and test set 10's oversubscribed LeNet (6.5x) and template MNIST (5.4x) and set 1's
# LeNet (6.1x) are compute, as their experts said. On held-out test set 11 it decided no verdict.
_MATH_OUTWEIGHS = 5.0
# ... and over a CPU run's launch finding (the fixed cost of calling ops, timed inside the model's phases and
# credited out of compute) when the math is the largest share, more than this many points above launch's:
# the experts' rule, the largest share, with a margin wide enough that a class an expert would also name is
# not overruled. Chosen on the development set and test sets 1-22 (2026-11-28, from their records): at 0.30
# four verdicts that were wrong become right (set 10's sequence labeller, set 12's MNIST CNN, set 14's BYOL,
# set 18's aitextgen: the math 64-73% of the step beside a launch finding's 15-32%, all four compute to their
# experts) and one right becomes acceptable (set 15's stylegan2, launch to its expert, compute acceptable);
# at 0.20 the development set's seq2seq tutorial turns wrong. Input, host and sync findings lie outside the
# math and keep _MATH_OUTWEIGHS alone (applied to them, the planted anomaly-detection sample turned compute).
# On a GPU launch is the idle time left once the other classes are explained, not a share of the math.
_MATH_LEADS = 0.30


def _f(facts: dict[str, object], name: str) -> float:
    value = facts.get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def breakdown(facts: dict[str, object]) -> dict[str, float]:
    """Category -> share of the steady step; empty with too few steady steps to judge from."""
    if not enough_steps(facts) or facts.get("step_time") is None:
        return {}
    if facts.get("device_timeline_available"):
        return _device_breakdown(facts)
    # Each phase's share goes to its class (vocabulary.PHASES says which).
    split = dict.fromkeys(("input", "copy", "host", "compute", "sync", "launch"), 0.0)
    for phase in PHASES:
        split[phase.cause] = split.get(phase.cause, 0.0) + _f(facts, f"{phase.name}_share")
    # The loop's own code ("other") holds Python, sync waits and torch ops called outside the
    # model's forward (a model run through .forward() directly, tensor work on batches): the ops
    # are the device's work, compute.
    loop_ops = min(_f(facts, "loop_op_share"), _f(facts, "other_share"))
    split["host"] -= loop_ops
    split["compute"] += loop_ops
    sync = min(_f(facts, "sync_share"), split["host"])
    split["host"] -= sync
    split["sync"] = sync
    if facts.get("cpu_only") and facts.get("dispatch_share") is not None:
        # On a CPU the model's phases hold the fixed cost of calling ops (Python, module calls,
        # autograd's engine, ops too small to amortize their call) beside the arithmetic: launch.
        split["launch"] = min(split["compute"], _f(facts, "dispatch_share"))
        split["compute"] -= split["launch"]
    if facts.get("cuda_used") and _f(facts, "cpu_cuda_ratio") > 1.0:
        idle = facts.get("gpu_idle_share")
        if idle is None and facts.get("gpu_busy_share") is not None:
            idle = 1.0 - _f(facts, "gpu_busy_share")
        if idle is not None:
            unexplained = float(idle) - (split["input"] + split["copy"] + split["host"] + sync)
            split["launch"] = max(0.0, min(split["compute"], unexplained))
            split["compute"] -= split["launch"]
    total = sum(split.values())
    if total <= 0:
        return {}
    return {k: round(v / total, 4) for k, v in split.items()}


def _device_breakdown(facts: dict[str, object]) -> dict[str, float]:
    """The step as the GPU lived it, from the profile's device timeline (trace/device.py): busy
    computing, copying or communicating with nothing to hide it, or idle waiting for the host to
    fetch data, to sync, to run its own code, to launch, or for other work. Work queued behind
    other work waits for a collective when the run communicates, else for a sync (an event, a
    stream). The host's time while the GPU waited is launch when its op time exceeds the kernels'
    (it is issuing the work), else host."""
    waits_on = "communication" if _f(facts, "communication_kernel_share") > 0 else "sync"
    split = {
        "compute": _f(facts, "device_compute_share"),
        "copy": _f(facts, "device_copy_share"),
        "communication": _f(facts, "exposed_communication_share"),
        "input": _f(facts, "gpu_idle_data_share"),
        "sync": _f(facts, "gpu_idle_sync_share"),
        "host": 0.0,
        "launch": _f(facts, "gpu_idle_launch_share"),
    }
    # The host's own time while the GPU waited is issuing work when its ops take longer than the
    # kernels they launch (launch-bound), else its own code (host-bound).
    issuing = _f(facts, "cpu_cuda_ratio") >= 1.0
    split["launch" if issuing else "host"] += _f(facts, "gpu_idle_host_share")
    split[waits_on] += _f(facts, "gpu_idle_dependency_share")
    total = sum(split.values())
    if total <= 0:
        return {}
    return {k: round(v / total, 4) for k, v in split.items()}


def rank_findings(findings: list[Finding]) -> list[Finding]:
    """Warnings and criticals before infos; then the biggest lever first: by the gain in throughput
    (samples per second: a larger batch's gain is per sample, every other fix keeps the samples per
    step), measured or estimated; then by recoverable seconds per step, then severity.

    A fix that pays after another (its rule's ``after``) is that fix's follow-up when the other
    leads (fires as a warning or worse): it is listed right after it, as info, and keeps ``after``;
    otherwise it stands on its own (``after`` cleared). Severity then follows the order: a finding
    with a time gain is no more severe than the one with a time gain ranked above it (a critical fix
    that recovers less than a warning above it is a warning), so the list reads from the most to the
    least worth doing. Findings without a time gain (an OOM, a setting, quality) keep their severity;
    a critical memory finding (the run ran out of memory) comes first."""
    def key(f: Finding):
        # A run that ran out of memory ended there (_primary): that finding heads the list.
        return (f.severity == "info", not _ended_the_run(f), -(f.gain.speedup or 1.0),
                -(f.gain.seconds_per_step or 0.0),
                -SEVERITIES.index(f.severity), f.id)
    leads = {f.id: f for f in findings if f.severity != "info"}
    follows = [_follow_up(f, leads[f.after]) for f in findings if f.after in leads]
    ranked = sorted((replace(f, after=None) if f.after else f for f in findings if f.after not in leads),
                    key=key)
    pending = sorted(follows, key=key, reverse=True)  # each goes right after its lead: largest gain first
    while pending:
        placed = [f for f in pending if any(g.id == f.after for g in ranked)]
        if not placed:  # leads that follow each other in a circle: keep them, in gain order
            ranked += sorted(pending, key=key)
            break
        for f in placed:
            ranked.insert(next(i for i, g in enumerate(ranked) if g.id == f.after) + 1, f)
            pending.remove(f)
    out, ceiling = [], None
    for f in ranked:
        if f.gain.seconds_per_step and not f.after:
            if ceiling is not None and SEVERITIES.index(f.severity) > SEVERITIES.index(ceiling):
                f = replace(f, severity=ceiling)
            ceiling = f.severity
        out.append(f)
    return out


def larger_lever_below(findings: list[Finding]) -> Optional[tuple[int, Finding]]:
    """An information finding ranked below a warning or critical lead although it promises clearly more
    throughput: its rank (from 1) and itself; None when the lead is also the largest lever.

    Information findings rank below warnings: their rules call them levers worth knowing, not what holds the run
    back (a larger batch above the size a rule calls tiny, where a per-sample cost may grow with it, or a gain
    hard to foresee), yet a user looking for the biggest lever must still see it. Test set 25's course MLP:
    batches of 32, the batch estimated at 1.6x more samples per second and ranked fourth, under a fused-optimizer
    warning of 1.2x; its expert measured the batch at 4.4x.
    "Clearly": the lower end of its 95% interval is above the upper end of the lead's (seconds saved for the
    samples of one step, the base both gains share), or without intervals its gain is 1.5 times the lead's.
    Only a larger batch's estimate (a gain in samples per second, the first lever against a per-step cost, as
    issue 25 asks) or a gain the what-if measured is named so: the other information gains are estimates their
    rules call hard to foresee (torch.compile's or bfloat16's on a CPU), and naming them the largest would
    promise what the rule itself does not. A follow-up (do it after another fix) is not counted: it pays only
    once its lead is done."""
    if not findings or findings[0].severity == "info" or not findings[0].gain.speedup:
        return None
    lead = findings[0].gain

    def clearly_larger(gain) -> bool:
        if not gain.speedup or gain.speedup <= lead.speedup:
            return False
        if gain.low is not None and lead.high is not None:
            return gain.low > lead.high
        return gain.speedup - 1.0 >= 1.5 * (lead.speedup - 1.0)

    below = [(rank, f) for rank, f in enumerate(findings[1:], 2)
             if f.severity == "info" and not f.after and (f.gain.per_sample or f.gain.measured)
             and clearly_larger(f.gain)]
    return max(below, key=lambda pair: pair[1].gain.speedup or 0.0) if below else None


def _follow_up(finding: Finding, lead: Finding) -> Finding:
    """``finding`` as ``lead``'s follow-up: info, and its gain says it was estimated on its own."""
    gain, note = finding.gain, f", estimated on its own; do it after “{lead.name}”"
    if gain.text and not gain.text.endswith(note):  # ranking again (after the gains' intervals) adds it once
        gain = replace(gain, text=gain.text + note)
    return replace(finding, severity="info", gain=gain)


def _no_steps_headline(facts: dict[str, object]) -> str:
    cut = facts.get("trace_cut")
    if facts.get("from_trace") and cut:
        return ("No steps in the part of this trace that could be read: the file was cut off before the end of its "
                f"first ProfilerStep#N range ({cut}). Give trainprobe the whole file (record it again if it was cut "
                "off as it was written); the kernels and ops it holds are listed below.")
    if facts.get("from_trace"):
        return ("No steps in this trace: it has no ProfilerStep#N ranges, so one step cannot be told from the "
                "next. Record it with torch.profiler.profile(schedule=...) and call prof.step() once per training "
                "step; the kernels and ops it holds are listed below.")
    status = facts.get("outcome_status") or "unknown"
    if _training_steps(facts):  # steps were recorded: too few to judge, never "no step"
        return _thin_headline(facts, facts.get("steady_steps") or 0)
    if facts.get("oom"):
        return "No training step was measured: the run ran out of memory before its first step."
    if status == "not_started":
        return "No training step was measured: the script could not be started."
    if status in ("failed", "killed", "interrupted", "timeout", "probe_error"):
        return f"No training step was measured: the run ended early ({status})."
    return ("No training step was measured: the script never called backward() or "
            "optimizer.step() on a model trainprobe could see.")


def _training_steps(facts: dict[str, object]) -> int:
    return int(_f(facts, "steps_recorded") - _f(facts, "validation_steps"))


def _thin_headline(facts: dict[str, object], steady: object) -> str:
    """Steps were measured, but too few to judge from: say how many, and what would give more."""
    return (f"Not enough steps to judge where the time goes: {_counted(facts, steady)}, and at least "
            f"{FEWEST_STEPS} are needed (two when each alone puts one class at {display.share(ALIKE_SHARE)} of the "
            f"step or more; {MIN_STEADY_STEPS} to settle a close call).{_what_gives_enough(facts)}")


def _counted(facts: dict[str, object], steady: object) -> str:
    """How many steps the verdict rests on, and how many of them came from the warm-up."""
    borrowed = int(_f(facts, "steady_from_warmup"))
    micro = int(_f(facts, "steady_micro_batches"))
    # Steps that accumulate gradients: the micro-batches are what the resamples drew (facts/window.py).
    split = (f", holding {micro} micro-batches of accumulated gradients, each timed" if micro else "")
    if borrowed:
        which = "a warm-up step" if borrowed == 1 else "warm-up steps"
        return (f"{steady} measured, {borrowed} of them {which} after the first, counted because the run "
                f"was too short for a separate warm-up{split}")
    return f"{steady} measured after warm-up{split}"


def _what_gives_enough(facts: dict[str, object]) -> str:
    """Exactly what would give enough steps: the script's own length, or trainprobe's limits."""
    step = facts.get("step_time") or facts.get("warmup_step_time")
    warmup = int(_f(facts, "warmup_steps"))
    fewer_warmup = (" or count only the first step as warm-up with --warmup-steps 1"
                    if warmup > 1 and not facts.get("steady_from_warmup") else "")
    first = facts.get("first_run_steps")  # a second run, stopped once its fitted windows were done
    if facts.get("outcome_status") == "completed" or isinstance(first, int):
        made = first if isinstance(first, int) else _training_steps(facts)
        return (f" The script ended by itself after {made} training steps: give it at least "
                f"{MIN_STEADY_STEPS + 1} (more data, more epochs or more iterations){fewer_warmup}.")
    micro = _micro_batched_time(facts, step) if isinstance(step, (int, float)) and step >= 2.0 else None
    if micro is not None:
        return (f" Its steps take about {display.seconds(step)}, each of about {_f(facts, 'grad_accumulation'):g} "
                f"micro-batches: one step after warm-up is enough to judge from them; allow more time with "
                f"--max-seconds (about {micro} s).")
    if isinstance(step, (int, float)) and step >= 2.0:
        return f" Its steps take about {display.seconds(step)}: {_time_to_allow(facts, step)}{fewer_warmup}."
    return f" Let it run longer{fewer_warmup}." if fewer_warmup else ""


def _time_to_allow(facts: dict[str, object], step: float, verdict: bool = True) -> str:
    """The --max-seconds that holds, at this pace, what the clock plans for slow steps (probe/clock.py): the
    launch and first step as measured, one more warm-up step (the first sets no pace), MIN_STEADY_STEPS measured
    steps for a verdict; then the profiled windows' steps for the op profiles. (It asked for twenty steps' time:
    1540 s for descript-audio-codec's 77 s steps, test set 21, where about 550 s gives a verdict.) ``verdict``
    False: a verdict was given, and only the op profiles' time is asked for."""
    first = facts.get("time_to_first_step")
    start = float(first) if isinstance(first, (int, float)) else step
    judged = _round_up(start + (1 + MIN_STEADY_STEPS) * step)
    profiled = facts.get("profiling_steps_planned")
    whole = _round_up(start + (1 + MIN_STEADY_STEPS + PROFILED_SLOWDOWN * (profiled or 0)) * step)
    if not verdict:
        micro = _micro_batched_time(facts, step)
        return f"allow about {whole if micro is None else micro} s with --max-seconds"
    if not isinstance(profiled, int) or not profiled:
        return (f"allow more time with --max-seconds (about {judged} s for a verdict from {MIN_STEADY_STEPS} measured "
                "steps)")
    return (f"allow more time with --max-seconds (about {judged} s for a verdict from {MIN_STEADY_STEPS} measured "
            f"steps, about {whole} s for the op profiles as well)")


def _micro_batched_time(facts: dict[str, object], step: float) -> Optional[int]:
    """Steps of micro-batches: the step after warm-up is profiled and judged by them (probe/clock.py), so three
    steps' time is enough, not the windows of other slow steps; None for steps that accumulate no more."""
    return int(step * 3) if _f(facts, "grad_accumulation") > FEWEST_STEPS else None


def _round_up(seconds: float) -> int:
    return int(-(-seconds // 10) * 10)


NEAR_PEAK = 0.7  # a step at this share of the hardware's matrix peak is near what it can do


def _peak_text(facts: dict[str, object]) -> str:
    """"this CPU's measured fp32 matmul peak (199 GFLOP/s)" / "the NVIDIA H100's bf16 datasheet peak (...)"."""
    device = "GPU" if facts.get("cuda_used") else "CPU"
    source = "measured" if facts.get("peak_source") == "measured" else "datasheet"
    return (f"this {device}'s {source} {facts.get('peak_dtype') or ''} matmul peak "
            f"({display.flop_rate(facts.get('peak_flops_per_s'))})").replace("  ", " ")


def _module_text(facts: dict[str, object]) -> str:
    """", and its child module `lstm` takes 85% of the step" when one of the model's children takes most of it."""
    name, share = facts.get("top_module"), facts.get("top_module_share")
    if isinstance(share, (int, float)) and share >= 0.5 and name:
        return f", and its child module `{name}` takes {display.share(share)} of the step"
    return ""


def near_peak(facts: dict[str, object]) -> bool:
    """The step's math runs near the hardware's limit: its fastest matmul precision's. A float32 step at
    78% of a CPU's fp32 peak, on a CPU that multiplies bfloat16 4.4x faster (MAE in test set 18), is at 18%
    of what the hardware can do, and its bf16 finding is a real lever."""
    mfu = facts.get("mfu")
    return isinstance(mfu, (int, float)) and mfu / _faster_precision(facts) >= NEAR_PEAK


def _faster_precision(facts: dict[str, object]) -> float:
    """How many times faster than the step's own precision the hardware multiplies in a 16-bit one the step
    does not use (its peak's dtype is fp32, or tf32 on a GPU); 1 when none is faster or it is not known."""
    dtype = facts.get("peak_dtype")
    if facts.get("cuda_used"):
        speedup = facts.get("tensor_core_peak_speedup") if dtype in ("fp32", "tf32") else None
    else:
        speedup = facts.get("bf16_peak_speedup") if dtype == "fp32" else None
    return float(speedup) if isinstance(speedup, (int, float)) and speedup > 1 else 1.0


def _compute_headline(facts: dict[str, object], minor: int = 0, levers: bool = False) -> str:
    """``minor``: findings above info that the math outweighs; they are levers, only smaller ones. ``levers``:
    findings at info promise a gain (the sentence after this one gives it), so the loop is not without one."""
    mfu = facts.get("mfu")
    # Neither, when a trace cut off early leaves it unknown (facts/trace.py: blank_absence).
    device = "GPU" if facts.get("cuda_used") else "CPU" if facts.get("cpu_only") else "device"
    see = f" See the {minor} smaller finding{'s' if minor > 1 else ''} below." if minor else ""
    if near_peak(facts):
        return (f"Near this hardware's limit: the step's matrix math runs at {display.share(mfu)} of "
                f"{_peak_text(facts)}. Little is left to gain in how the step runs: do less work (a smaller "
                "model, fewer or shorter steps, fewer samples) or use faster hardware." + see)
    module = _module_text(facts)
    if isinstance(mfu, (int, float)):
        faster = _faster_precision(facts)
        half = "bfloat16" if not facts.get("cuda_used") else "16-bit floats on its tensor cores"
        limit = (f": near what {facts.get('peak_dtype')} does here, but this {device} multiplies {half} "
                 f"{display.ratio(faster)} faster" if mfu >= NEAR_PEAK and faster > 1 else "")
        return (f"The {device} is busy with the model's math, at {display.share(mfu, 1)} of "
                f"{_peak_text(facts)}{limit}{module}; " + _levers_text(minor, levers))
    why = facts.get("mfu_unknown_reason")
    tail = f" (how close to the hardware's peak is unknown: {why})" if why else ""
    steps = facts.get("unprofiled_run_steps")
    if isinstance(steps, int):
        # No op profile: the levers that read the op mix were not judged, so "no bottleneck" would overclaim.
        return (f"The {device} is busy with the model's math{tail}. The script ended after {steps} steps, before "
                "trainprobe could profile its ops, so the levers that read the op mix (bfloat16, torch.compile, the cost of "
                "calling each op) were not judged: run it for more steps (more data or epochs) to have them "
                "judged." + see)
    step = facts.get("step_time")
    if facts.get("unprofiled_time_limit") and isinstance(step, (int, float)):
        # Slow steps stopped at --max-seconds before the op profile (test set 21's hifi-gan, 21 s steps): the same.
        return (f"The {device} is busy with the model's math{tail}. --max-seconds stopped it before trainprobe could "
                "profile its ops, so the levers that read the op mix (bfloat16, torch.compile, the cost of calling "
                f"each op) were not judged: {_time_to_allow(facts, float(step), verdict=False)} to have them "
                "judged." + see)
    if facts.get("cuda_used"):
        return ("The GPU is busy with the model's math (the good case): "
                f"no significant bottleneck found{tail}." + see)
    return (f"The {device} is busy with the model's math: no significant bottleneck found "
            f"in the training loop{tail}." + see)


def _levers_text(minor: int, levers: bool = False) -> str:
    if not minor:
        # Information-level findings with a gain follow: "no lever" above them would read as a contradiction.
        if levers:
            return "no finding rose above information."
        return "no rule found a specific lever in the training loop."
    return (f"the {minor} finding{'s' if minor > 1 else ''} below {'are' if minor > 1 else 'is a'} "
            f"smaller lever{'s' if minor > 1 else ''}.")


def _recovered_share(finding: Finding, step_time: float) -> float:
    """The share of the step fixing ``finding`` recovers: 1 - 1/speedup (which also covers costs paid once
    per epoch, a gain_base larger than the steady step), else its seconds over the step."""
    gain = finding.gain
    return (1.0 - 1.0 / gain.speedup) if gain.speedup else (gain.seconds_per_step or 0.0) / step_time


def _credit(split: dict[str, float], top: Finding, step_time: object) -> dict[str, float]:
    """Show the primary finding's recoverable time in its class when the phase split put
    it under compute (dispatch overhead on a CPU, fp32 math that AMP would speed up is
    compute already): move its share of the step from compute to its class."""
    if top.category not in split or top.category == "compute" or not top.gain.seconds_per_step:
        return split
    if not isinstance(step_time, (int, float)) or step_time <= 0:
        return split
    wanted = min(_recovered_share(top, step_time), split["compute"] + split[top.category])
    moved = max(0.0, min(split["compute"], wanted - split[top.category]))
    if moved <= 0:
        return split
    out = dict(split)
    out["compute"] = round(out["compute"] - moved, 4)
    out[top.category] = round(out[top.category] + moved, 4)
    return out


def _gain_sentence(top: Finding) -> str:
    """What fixing the primary finding is worth: measured by the what-if, or estimated; in samples
    per second when the fix changes the batch size."""
    gain, verification = top.gain, top.verification
    if gain.measured and verification is not None and verification.speedup:
        what = "more samples per second" if gain.per_sample else "faster steps"
        return f" Measured with --verify: {display.ratio(verification.speedup)} {what} ({verification.span})."
    if not gain.speedup or gain.speedup < 1.05:
        return ""
    if gain.per_sample:
        return f" Fixing it could train about {display.ratio(gain.speedup)} more samples per second."
    return f" Fixing it could make steps about {display.ratio(gain.speedup)} faster."


def _ended_the_run(finding: Finding) -> bool:
    """A critical memory finding: the run ran out of memory (or was about to)."""
    return finding.category == "memory" and finding.severity == "critical"


def _primary(ranked: list[Finding], step_time: object) -> Optional[Finding]:
    """The finding that names the bottleneck: a warning or worse that recovers at least
    ``_SIGNIFICANT`` of the steady step; without a time gain, a communication warning
    (DataParallel) or a critical memory finding (an OOM). A run that ran out of memory ended there:
    that names the verdict before any gain."""
    for f in ranked:
        if _ended_the_run(f):
            return f
    for f in ranked:
        if f.severity == "info" or f.category not in CATEGORIES:
            continue
        if f.category == "communication":
            return f
        gain = f.gain.seconds_per_step or 0.0
        if isinstance(step_time, (int, float)) and step_time > 0 and gain / step_time >= _SIGNIFICANT:
            return f
    return None


def _led_by(top: Finding, shares: dict[str, float], facts: dict[str, object]) -> Optional[str]:
    """The class that names the verdict over ``top``, or None when ``top`` names it.

    * Another class (not compute) holding a dominant share (``_DOMINANT``) more than ``_NEAR`` above
      ``top``'s own class: the verdict is the class an expert names, the largest share, and shares this
      close are both right. (A hand-written update on bare tensors whose batches took 86% of each step had
      only a host finding, of 8%: "Host-bound" was false. A Lightning notebook's own code took 36% of the
      step, and a workers fix of 15% of it named "input", at 19%.) On a GPU run launch is what is left of
      the GPU's idle time once the other classes are explained: host work the fix removes (tensors made
      on the CPU in the loop) waits there, so it does not outweigh the fix.
    * The model's own math, holding ``_MATH_OUTWEIGHS`` times what ``top`` recovers: a run whose math is
      77% of the step is compute-bound, and a free setting worth 1.1x is its first finding, not its name.

    An out-of-memory run ended there, and communication is not outweighed by the per-rank math: in a
    job the question is why it scales short of its ranks (the traces' experts name exposed
    communication over 60% of compute kernels)."""
    if top.category == "memory":
        return _math_over_memory(top, shares, facts.get("step_time"))
    if top.category == "compute" or top.category not in shares:
        return None
    residual = ("launch",) if facts.get("cuda_used") or facts.get("device_timeline_available") else ()
    rivals = {c: s for c, s in shares.items() if c not in (top.category, "compute") + residual}
    lead = max(rivals, key=rivals.get, default=None)
    if lead is not None and rivals[lead] >= _DOMINANT and rivals[lead] - shares[top.category] > _NEAR:
        return lead
    step_time = facts.get("step_time")
    if top.category != "communication" and isinstance(step_time, (int, float)) and step_time > 0 \
            and shares.get("compute", 0.0) > _MATH_OUTWEIGHS * _recovered_share(top, step_time):
        return "compute"
    math = shares.get("compute", 0.0)
    if top.category == "launch" and not residual and math >= max(shares.values()) \
            and math - shares["launch"] > _MATH_LEADS:
        return "compute"
    return None


def _math_over_memory(top: Finding, shares: dict[str, float], step_time: object) -> Optional[str]:
    """A memory finding that recovers time (the kernel refilling pages the allocator gave back) recovers it
    from inside the model's phases, like a CPU run's launch finding: the math left beside it names the verdict
    when it is the larger share by more than ``_MATH_LEADS``. A run that ran out of memory ended there."""
    if _ended_the_run(top) or not isinstance(step_time, (int, float)) or step_time <= 0:
        return None
    recovered = _recovered_share(top, step_time)
    math = shares.get("compute", 0.0) - recovered
    return "compute" if math - recovered > _MATH_LEADS else None


def _model_math(split: dict[str, float], facts: dict[str, object]) -> dict[str, float]:
    """``split`` with compute cut to the model's own math: on the host's clock, the torch ops the loop
    calls outside the model (a batch made or augmented in the loop, metrics) are compute in the split,
    and no sign the model's math is what bounds the run."""
    if facts.get("device_timeline_available"):
        return split  # the kernels themselves
    loop_ops = min(_f(facts, "loop_op_share"), _f(facts, "other_share"))
    return {**split, "compute": max(0.0, split["compute"] - loop_ops)}


def make_verdict(facts: dict[str, object], ranked: list[Finding]) -> Verdict:
    split = breakdown(facts)
    common = dict(step_time=facts.get("step_time"),
                  steps_per_second=facts.get("steps_per_second"),
                  samples_per_second=facts.get("samples_per_second"), breakdown=split)
    top = _primary(ranked, facts.get("step_time"))
    if not split:
        memory = next((f for f in ranked if f.category == "memory"), None)
        return Verdict(category="unknown", headline=_no_steps_headline(facts),
                       primary_finding=memory.id if memory else None, **common)
    # The shares the verdict weighs: the primary finding's recoverable time credited to its class (dispatch
    # overhead is timed inside the model), and compute cut to the model's own math.
    credited = _credit(split, top, facts.get("step_time")) if top is not None else split
    shares = _model_math(credited, facts)
    if top is not None and _led_by(top, shares, facts) is None:
        common["breakdown"] = credited
        headline = display.sentence(top.title) + _gain_sentence(top)
        return Verdict(category=top.category, headline=headline, primary_finding=top.id,
                       **common)
    # The largest share, compute included: where the math outweighed a fix, the largest class other than
    # compute named the run once it passed 30% (the tabular handbook, test set 13: input 30% beside math 52%).
    largest = max(shares, key=shares.get, default=None)
    if largest is not None and largest != "compute" and shares[largest] >= _DOMINANT:
        headline = f"{display.share(split[largest])} of the step is {_SHARE_TEXT[largest]}"
        return Verdict(category=largest, headline=headline + _causes(ranked, largest), **common)
    minor = sum(1 for f in ranked if f.severity != "info")
    best = _best_speedup(ranked)
    headline = _compute_headline(facts, minor, levers=best is not None)
    if best:
        headline += f" The findings below could still make {_throughput(ranked, best)} up to about {display.ratio(best)} faster."
    return Verdict(category="compute", headline=headline, **common)


def with_trace_cut(verdict: Verdict, facts: dict[str, object]) -> Verdict:
    """A verdict on a trace file cut off early says so: it rests on the events before the cut (the no-steps
    headline says it in its own words)."""
    cut = facts.get("trace_cut")
    if not cut or verdict.category == "unknown":
        return verdict
    headline = (f"{verdict.headline} This trace file was cut off: {display.sentence(cut)} It was judged from the "
                "events before the cut, and what it seems to lack may lie past it.")
    return replace(verdict, headline=headline)


def _best_speedup(findings: list[Finding]) -> Optional[float]:
    """The largest speed-up a finding promises, when it is worth saying (at least 1.05x)."""
    best = max((f.gain.speedup or 0.0 for f in findings), default=0.0)
    return best if best >= 1.05 else None


def _throughput(findings: list[Finding], speedup: float) -> str:
    """What a speed-up is of: steps, or training (samples per second) when it is a larger batch's."""
    per_sample = any(f.gain.per_sample and f.gain.speedup == speedup for f in findings)
    return "training" if per_sample else "steps"


def _causes(ranked: list[Finding], category: str) -> str:
    """The end of a headline that names a class no finding leads: what the findings of that class
    below it say, or that there are none. Never 'no cause' above findings that name one."""
    related = [f for f in ranked if f.category == category]
    if not related:
        return ", but no rule found a specific cause."
    several = len(related) > 1
    said = f"; the {len(related)} finding{'s' if several else ''} below name{'' if several else 's'} its causes"
    best = _best_speedup(related)
    if best:
        return f"{said} (up to about {display.ratio(best)} faster)."
    return f"{said}, but fixing {'them' if several else 'it'} would recover little of it here."


def with_stability(verdict: Verdict, stability, facts: Optional[dict[str, object]] = None) -> Verdict:
    """The verdict with how firmly the steps support it; a borderline one says so in its headline.

    From fewer than MIN_STEADY_STEPS steps (a short run, ``facts`` given) the verdict stands only when
    it is decisive (engine/stability.py: DECISIVE of the resamples reach it), and says how many steps
    it rests on; otherwise there is no verdict, and the headline says what would give enough steps."""
    if stability is None:
        return verdict
    out = replace(verdict, agreement=stability.agreement, alternative=stability.alternative,
                  share_low=stability.share_low, share_high=stability.share_high)
    if facts is not None and not firm_steps(facts):
        return _short_run(out, stability, facts)
    if out.borderline and stability.alternative:
        label = _LABEL.get(stability.alternative, stability.alternative)
        out = replace(out, headline=(
            f"Borderline: {out.headline} On resamples of the measured steps this verdict came out "
            f"{display.share(stability.agreement)} of the time and {label} most of the rest: measure "
            "longer (--window) or on a quieter machine to settle it."))
    if facts is not None and facts.get("steady_from_warmup"):
        out = replace(out, headline=f"{out.headline} Judged from {_counted(facts, facts.get('steady_steps'))}.")
    return out


def _short_run(verdict: Verdict, stability, facts: dict[str, object]) -> Verdict:
    steady = facts.get("steady_steps") or 0
    if few_steps(facts):
        return _two_steps(verdict, stability, facts)
    if stability.agreement >= DECISIVE:
        held = ("every resample of them" if stability.agreement >= 1
                else f"{display.share(stability.agreement)} of resamples of them")
        return replace(verdict, headline=(
            f"{verdict.headline} Judged from a short run: {_counted(facts, steady)}; the verdict held on {held}."))
    label = _LABEL.get(verdict.category, verdict.category)
    other = _LABEL.get(stability.alternative, stability.alternative) if stability.alternative else "another"
    return Verdict(
        category="unknown", step_time=verdict.step_time, steps_per_second=verdict.steps_per_second,
        samples_per_second=verdict.samples_per_second, breakdown={},
        headline=(f"Too few steps to settle where the time goes: {_counted(facts, steady)}, and resamples of "
                  f"them came out {label} {display.share(stability.agreement)} of the time and {other} most of "
                  f"the rest (a verdict from fewer than {MIN_STEADY_STEPS} steps must hold on "
                  f"{display.share(DECISIVE)} of them).{_what_gives_enough(facts)}"))


def _two_steps(verdict: Verdict, stability, facts: dict[str, object]) -> Verdict:
    """Two steps (facts/window.py: FEWEST_ALIKE_STEPS): the verdict stands when each step alone reaches it (every
    resample does) and its class holds ALIKE_SHARE of each step or more; else there is none."""
    steady = facts.get("steady_steps") or 0
    label = _LABEL.get(verdict.category, verdict.category)
    low = stability.share_low
    if stability.agreement >= 1.0 and low is not None and low >= ALIKE_SHARE:
        return replace(verdict, headline=(
            f"{verdict.headline} Judged from a short run: {_counted(facts, steady)}; each of them alone is {label}, "
            f"with {display.share(low)} of its time or more there."))
    if stability.agreement >= 1.0:
        why = (f"each of them alone is {label}, but with only {display.share(low or 0.0)} of its time there at the "
               f"least (two steps settle a verdict from {display.share(ALIKE_SHARE)} in each)")
    else:
        other = _LABEL.get(stability.alternative, stability.alternative) if stability.alternative else "another"
        why = f"one of them alone is {label} and the other {other}"
    return Verdict(
        category="unknown", step_time=verdict.step_time, steps_per_second=verdict.steps_per_second,
        samples_per_second=verdict.samples_per_second, breakdown={},
        headline=f"Too few steps to settle where the time goes: {_counted(facts, steady)}, and {why}."
                 f"{_what_gives_enough(facts)}")


_LABEL = {"input": "input-bound", "host": "host-bound", "launch": "launch-bound", "sync": "sync-bound",
          "copy": "copy-bound", "compute": "compute-bound", "memory": "memory-bound",
          "communication": "communication-bound"}
