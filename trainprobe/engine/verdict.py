"""Rank the findings, split the step into the verdict's classes and name the bottleneck.

The split (``breakdown``) maps the steady step's phases onto the classes so
that they add up to the step:

* ``data_wait`` -> input; ``h2d`` -> copy;
* ``other`` (the loop's own code) -> host, except the measured sync time
  (``sync_time_per_step``), which moves to sync, and the torch ops the loop ran
  outside the model's forward (``loop_op_share``), which are compute;
* forward + backward + optimizer (+ eval forwards inside training steps) ->
  compute. On a GPU run whose CPU issues work slower than the GPU runs it
  (``cpu_cuda_ratio`` > 1), the GPU's idle time not explained by the other
  classes moves from compute to launch. On a CPU-only run the fixed cost of
  calling ops (``dispatch_share``: Python, module calls and autograd's engine
  between the ops, and ops too small to amortize their call) moves from
  compute to launch, and compute means the CPU is busy with the model's math.

memory and communication have no share of the split: they come from findings
(an OOM, DataParallel) only. When the primary finding's recoverable time is
larger than its class's share (dispatch overhead on a CPU-only run sits in the
forward and backward phases), that time moves from compute to its class.

The verdict's category is that of the top-ranked warning (or critical) finding
that recovers at least 5% of the steady step, or of a communication warning
(DataParallel) or critical memory finding (an OOM), which have no time share.
Findings outside the steady steps (validation without no_grad) or about
quality (no LR schedule) do not name it. Without such a finding, a class
other than compute holding 30% of the step or more names it; otherwise
compute, the good case ("the device is busy").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ..findings import CATEGORIES, SEVERITIES, Finding, Verdict
from .. import display
from ..facts.window import MIN_STEADY_STEPS, enough_steps

__all__ = ["breakdown", "rank_findings", "make_verdict", "with_stability", "near_peak", "NEAR_PEAK"]

_SHARE_TEXT = {
    "input": "spent waiting for data",
    "copy": "spent copying to the device",
    "host": "the loop's own code",
    "sync": "spent waiting in host-device syncs",
    "launch": "spent launching work rather than computing (kernel launches, or on a CPU the fixed cost of calling ops)",
    "communication": "spent in collective communication that nothing overlaps",
}

_DOMINANT = 0.3  # a class this large names the verdict even without a finding
_SIGNIFICANT = 0.05  # a finding must recover this share of the step to name the verdict


def _f(facts: dict[str, object], name: str) -> float:
    value = facts.get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def breakdown(facts: dict[str, object]) -> dict[str, float]:
    """Category -> share of the steady step; empty with too few steady steps to judge from."""
    if not enough_steps(facts) or facts.get("step_time") is None:
        return {}
    if facts.get("device_timeline_available"):
        return _device_breakdown(facts)
    # The loop's own code ("other") holds Python, sync waits and torch ops called outside the
    # model's forward (a model run through .forward() directly, tensor work on batches): the ops
    # are the device's work, compute.
    loop_ops = min(_f(facts, "loop_op_share"), _f(facts, "other_share"))
    split = {
        "input": _f(facts, "data_wait_share"),
        "copy": _f(facts, "h2d_share"),
        "host": _f(facts, "other_share") - loop_ops + _f(facts, "debug_share"),
        "compute": _f(facts, "compute_share") + _f(facts, "eval_share") + loop_ops,
        "sync": 0.0,
        "launch": 0.0,
    }
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
    """Warnings and criticals before infos; then by recoverable seconds per step, then severity."""
    def key(f: Finding):
        return (f.severity == "info", -(f.gain.seconds_per_step or 0.0),
                -SEVERITIES.index(f.severity), f.id)
    return sorted(findings, key=key)


def _no_steps_headline(facts: dict[str, object]) -> str:
    if facts.get("from_trace"):
        return ("No steps in this trace: it has no ProfilerStep#N ranges, so one step cannot be told from the "
                "next. Record it with torch.profiler.profile(schedule=...) and call prof.step() once per training "
                "step; the kernels and ops it holds are listed below.")
    status = facts.get("outcome_status") or "unknown"
    steady = facts.get("steady_steps") or 0
    if steady or (facts.get("steps_recorded") or 0) > (facts.get("warmup_steps") or 0):
        return _thin_headline(facts, steady)
    if facts.get("oom"):
        return "No training step was measured: the run ran out of memory before its first step."
    if status == "not_started":
        return "No training step was measured: the script could not be started."
    if status in ("failed", "killed", "interrupted", "timeout", "probe_error"):
        return f"No training step was measured: the run ended early ({status})."
    return ("No training step was measured: the script never called backward() or "
            "optimizer.step() on a model trainprobe could see.")


def _thin_headline(facts: dict[str, object], steady: object) -> str:
    """Steps were measured, but too few to judge from: say how many, and what would give more."""
    text = (f"Not enough steady steps to judge where the time goes: {steady} measured after warm-up, "
            f"and at least {MIN_STEADY_STEPS} are needed.")
    step = facts.get("step_time") or facts.get("warmup_step_time")
    if facts.get("outcome_status") == "completed":
        return text + f" The script ended after {facts.get('steps_recorded')} steps; give it more steps (more data or epochs)."
    if isinstance(step, (int, float)) and step >= 2.0:
        return text + (f" Its steps take about {display.seconds(step)}: allow more time with --max-seconds "
                       f"(about {int(step * 20)} s) or fewer warm-up steps with --warmup-steps.")
    return text


NEAR_PEAK = 0.7  # a step at this share of the hardware's matrix peak is near what it can do


def _peak_text(facts: dict[str, object]) -> str:
    """"this CPU's measured fp32 matmul peak (199 GFLOP/s)" / "the NVIDIA H100's bf16 datasheet peak (...)"."""
    device = "GPU" if facts.get("cuda_used") else "CPU"
    source = "measured" if facts.get("peak_source") == "measured" else "datasheet"
    return (f"this {device}'s {source} {facts.get('peak_dtype') or ''} matmul peak "
            f"({display.flop_rate(facts.get('peak_flops_per_s'))})").replace("  ", " ")


def _module_text(facts: dict[str, object]) -> str:
    """", and the lstm takes 85% of the step" when one of the model's children takes most of it."""
    name, share = facts.get("top_module"), facts.get("top_module_share")
    if isinstance(share, (int, float)) and share >= 0.5 and name:
        return f", and its {name} takes {display.share(share)} of the step"
    return ""


def near_peak(facts: dict[str, object]) -> bool:
    mfu = facts.get("mfu")
    return isinstance(mfu, (int, float)) and mfu >= NEAR_PEAK


def _compute_headline(facts: dict[str, object]) -> str:
    mfu = facts.get("mfu")
    device = "GPU" if facts.get("cuda_used") else "CPU"
    if near_peak(facts):
        return (f"Near this hardware's limit: the step's matrix math runs at {display.share(mfu)} of "
                f"{_peak_text(facts)}. Little is left to gain in how the step runs: do less work (a smaller "
                "model, fewer or shorter steps, fewer samples) or use faster hardware.")
    module = _module_text(facts)
    if isinstance(mfu, (int, float)):
        return (f"The {device} is busy with the model's math, at {display.share(mfu, 1)} of "
                f"{_peak_text(facts)}{module}; no rule found a specific lever in the training loop.")
    why = facts.get("mfu_unknown_reason")
    tail = f" (how close to the hardware's peak is unknown: {why})" if why else ""
    if facts.get("cuda_used"):
        return ("The GPU is busy with the model's math (the good case): "
                f"no significant bottleneck found{tail}.")
    return ("The CPU is busy with the model's math: no significant bottleneck found "
            f"in the training loop{tail}.")


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "." if text else text


def _credit(split: dict[str, float], top: Finding, step_time: object) -> dict[str, float]:
    """Show the primary finding's recoverable time in its class when the phase split put
    it under compute (dispatch overhead on a CPU, fp32 math that AMP would speed up is
    compute already): move its share of the step from compute to its class."""
    if top.category not in split or top.category == "compute" or not top.gain.seconds_per_step:
        return split
    if not isinstance(step_time, (int, float)) or step_time <= 0:
        return split
    # The gain's share of the step: 1 - 1/speedup also covers costs paid once per
    # epoch (a gain_base larger than the steady step).
    share = (1.0 - 1.0 / top.gain.speedup) if top.gain.speedup else \
        top.gain.seconds_per_step / step_time
    wanted = min(share, split["compute"] + split[top.category])
    moved = max(0.0, min(split["compute"], wanted - split[top.category]))
    if moved <= 0:
        return split
    out = dict(split)
    out["compute"] = round(out["compute"] - moved, 4)
    out[top.category] = round(out[top.category] + moved, 4)
    return out


def _primary(ranked: list[Finding], step_time: object) -> Optional[Finding]:
    """The finding that names the bottleneck: a warning or worse that recovers at least
    ``_SIGNIFICANT`` of the steady step; without a time gain, a communication warning
    (DataParallel) or a critical memory finding (an OOM). A run that ran out of memory ended there:
    that names the verdict before any gain."""
    for f in ranked:
        if f.category == "memory" and f.severity == "critical":
            return f
    for f in ranked:
        if f.severity == "info" or f.category not in CATEGORIES:
            continue
        if f.category == "communication" or (f.category == "memory" and f.severity == "critical"):
            return f
        gain = f.gain.seconds_per_step or 0.0
        if isinstance(step_time, (int, float)) and step_time > 0 and gain / step_time >= _SIGNIFICANT:
            return f
    return None


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
    if top is not None:
        common["breakdown"] = _credit(split, top, facts.get("step_time"))
        headline = _sentence(top.title)
        if top.gain.speedup and top.gain.speedup >= 1.05:
            headline += f" Fixing it could make steps about {display.ratio(top.gain.speedup)} faster."
        return Verdict(category=top.category, headline=headline, primary_finding=top.id,
                       **common)
    largest = max((c for c in split if c != "compute"), key=split.get, default=None)
    if largest and split[largest] >= _DOMINANT:
        headline = (f"{display.share(split[largest])} of the step is {_SHARE_TEXT[largest]}, "
                    f"but no rule found a specific cause.")
        return Verdict(category=largest, headline=headline, **common)
    headline = _compute_headline(facts)
    minor = sum(1 for f in ranked if f.severity != "info")
    if minor:
        headline += f" See the {minor} smaller finding{'s' if minor > 1 else ''} below."
    return Verdict(category="compute", headline=headline, **common)


def with_stability(verdict: Verdict, stability) -> Verdict:  # stability: Optional[engine.stability.Stability]
    """The verdict with how firmly the steps support it; a borderline one says so in its headline."""
    if stability is None:
        return verdict
    out = replace(verdict, agreement=stability.agreement, alternative=stability.alternative,
                  share_low=stability.share_low, share_high=stability.share_high)
    if out.borderline and stability.alternative:
        label = _LABEL.get(stability.alternative, stability.alternative)
        out = replace(out, headline=(
            f"Borderline: {out.headline} On resamples of the measured steps this verdict came out "
            f"{display.share(stability.agreement)} of the time and {label} most of the rest: measure "
            "longer (--window) or on a quieter machine to settle it."))
    return out


_LABEL = {"input": "input-bound", "host": "host-bound", "launch": "launch-bound", "sync": "sync-bound",
          "copy": "copy-bound", "compute": "compute-bound", "memory": "memory-bound",
          "communication": "communication-bound"}
