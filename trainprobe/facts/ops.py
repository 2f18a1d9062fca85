"""Op-level facts from the torch.profiler window: dispatch, launches, syncs, copies."""

from __future__ import annotations

from ..record import RunRecord
from ._stats import ratio
from .window import mean_step_time, steady_steps

__all__ = ["FAMILY", "FACTS", "compute"]

FAMILY = "ops"

FACTS = {
    "profiler_available": ("bool", "The torch.profiler window ran and was summarized."),
    "unprofiled_run_steps": ("count", "The training steps of a run that ended by itself before the torch.profiler "
                             "window (a run of a few steps): the facts that read the op mix are unknown for that "
                             "reason, not switched off. None when the window ran, or the run ended otherwise."),
    "unprofiled_time_limit": ("bool", "trainprobe stopped the run at --max-seconds before its torch.profiler window "
                              "(slow steps): the facts that read the op mix are unknown for that reason. None when "
                              "the window ran, or the run ended otherwise."),
    "cpu_op_time_per_step": ("s", "Self CPU time of all ops per profiled step."),
    "cuda_op_time_per_step": ("s", "Kernel time per step: the median over the profiled steps of the kernel time "
                              "each launched (a kernel counted in the step whose host code launched it); in a "
                              "record without that split, the kernels' self CUDA time over the profiled steps."),
    "cpu_cuda_ratio": ("x", "CPU op time over CUDA kernel time; well above 1 the GPU waits for "
                       "the CPU to issue work."),
    "ops_per_step": ("per_step", "aten ops per step."),
    "mean_op_time": ("s", "Mean self CPU time of an aten op of the training loop (DataLoader work in the "
                     "main process left out); "
                     "a few microseconds means the ops are mostly dispatch overhead."),
    "toplevel_ops_per_step": ("per_step", "Ops called from Python directly, per step."),
    "mean_toplevel_op_time": ("s", "CPU seconds per top-level op (dispatch cost)."),
    "launches_per_step": ("per_step", "CUDA kernel launches per step."),
    "mean_kernel_time": ("s", "Mean CUDA kernel duration."),
    "launch_overhead_per_step": ("s", "Estimated CPU time per step spent issuing ops "
                                 "(top-level ops × their mean CPU time)."),
    "other_op_time_per_step": ("s", "Self CPU time per step of the torch ops the loop's own code ran, "
                               "outside data loading, the model's forward, backward and the optimizer "
                               "(a model called through .forward() directly, batches made with torch ops)."),
    "loop_op_share": ("share", "other_op_time_per_step over the step: the part of the loop's own code that "
                      "is torch ops (model math or tensor work), not Python."),
    "loop_python_share": ("share", "The part of the step in the loop's own Python: other minus the torch ops "
                          "it ran (loop_op_share) and the measured sync waits."),
    "small_op_time_share": ("share", "Of the loop's op time, the share spent in ops that each took under "
                            "10 µs: mostly their fixed cost (dispatch, setup), which fusing or batching "
                            "saves. A few large matmuls among many tiny ops keep it low."),
    "cheap_op_time": ("s", "What calling one op costs here: median self CPU time of ops that do no "
                      "arithmetic (view, transpose, reshape...)."),
    "framework_overhead_per_step": ("s", "The fixed cost of a step, whatever the batch size: the time "
                                    "forward, backward and the optimizer spend outside their ops (Python, "
                                    "module calls, autograd's engine), plus ops per step × cheap_op_time; "
                                    "in the profiled steps."),
    "framework_overhead_share": ("share", "framework_overhead_per_step over the profiled steps' mean "
                                 "duration."),
    "dispatch_share": ("share", "The part of a step that is the fixed cost of calling ops rather than their "
                       "arithmetic: the model's phases outside their ops, plus the time of the model's ops "
                       "that each took under 10 µs (every op's, in records made before ops were kept by "
                       "phase), over the profiled steps' mean duration."),
    "model_ops_per_step": ("count", "Ops per step the forward, backward and optimizer ran (the loop's own ops, "
                           "a batch made with tensor writes, left out); unknown in records made before ops "
                           "were kept by phase."),
    "gpu_idle_share": ("share", "Share of the profiled window with no kernel running."),
    "syncs_per_step": ("per_step", "Host-device syncs per step (.item(), .cpu(), .tolist(), "
                       "synchronize)."),
    "item_calls_per_step": ("per_step", "Sync calls per step made by the loop (.item(), .tolist(), "
                            "bool(tensor), synchronize), not inside optimizer.step(); counted on "
                            "CPU-only runs too."),
    "sync_time_per_step": ("s", "Seconds per step the CPU waited in syncs."),
    "sync_share": ("share", "sync_time_per_step over the mean steady step (step_time)."),
    "h2d_copies_per_step": ("per_step", "Host-to-device copies per step."),
    "h2d_bytes_per_step": ("bytes", "Bytes copied host-to-device per step."),
    "h2d_pageable_bytes_per_step": ("bytes", "Of those, bytes copied from pageable (not pinned) "
                                    "memory."),
    "h2d_pageable_share": ("share", "Pageable share of the host-to-device bytes."),
    "cpu_tensor_creations_per_step": ("per_step", "torch.tensor(...)-style creations from Python "
                                      "data per step (aten::lift_fresh)."),
    "matmul_conv_share": ("share", "Matmul/convolution share of op time (device, or CPU)."),
    "fp32_matmul_conv_share": ("share", "fp32 matmul/convolution share of op time (all of it when "
                               "no autocast ran and the parameters are float32)."),
    "conv_ops": ("count", "Convolution ops seen in the window."),
    "peak_memory_allocated": ("bytes", "Peak CUDA memory allocated by tensors."),
}

_CREATION_OPS = ("aten::lift_fresh", "aten::scalar_tensor")


def _item_calls(record: RunRecord) -> object:
    """Sync calls the loop makes, without those inside optimizer.step().

    Adam-style optimizers call ``.item()`` on their CPU step counters once per
    parameter; those never wait for a GPU. The probe files them under keys
    that mention "optimizer" (e.g. "item/tolist (optimizer)"), left out here.
    """
    prof = record.profiler
    if prof.sync_calls:
        return sum(v for k, v in prof.sync_calls.items() if "optimizer" not in k.lower())
    return prof.syncs_per_step


def _creations(record: RunRecord) -> object:
    prof = record.profiler
    if not prof.steps:
        return None
    counted = getattr(prof, "tensor_creations_per_step", None)  # when the probe counts them all
    if counted is not None:
        return counted
    calls = sum(op.calls for op in prof.top_cpu_ops if op.name in _CREATION_OPS)
    return calls / prof.steps


def _fp32_share(record: RunRecord) -> object:
    """The probe's fp32 matmul/conv share; without it, all matmul/conv time counts as fp32
    when no forward ran under autocast and the model's parameters are all float32."""
    prof = record.profiler
    if prof.fp32_matmul_conv_share is not None:
        return prof.fp32_matmul_conv_share
    s = record.settings
    dtypes = {d for m in s.models for d in m.dtypes}
    if s.autocast_forwards == 0 and dtypes == {"float32"}:
        return prof.matmul_conv_share
    return None


def _at_most_one(share: object) -> object:
    # Pageable copies with an unknown size count as one byte each; keep the share a share.
    return None if share is None else min(1.0, share)  # type: ignore[call-overload]


_MODEL_PHASES = ("forward", "backward", "optimizer", "eval")


def _framework_overhead(record: RunRecord) -> dict[str, object]:
    """The part of a step that does not grow with the batch: the model's phases' time outside their
    ops (Python, module calls, hooks, the autograd engine between nodes) and each op's fixed call
    cost, measured over the profiled steps so the wall times and the op times cover the same steps.

    All the profiled steps, validation steps among them: the profiler's op times (and its op count) are
    per profiled step, every step of the window. Averaging the phases' wall time over the training
    steps alone set a training step's forward and backward against a fraction of their ops' time
    whenever the loop evaluated inside the window (a loss curve every few steps), and most of a large
    model's step looked like a fixed cost."""
    prof = record.profiler
    profiled = [s for s in record.steps if s.phase == "profiled"]
    if not prof.op_time_by_phase or not profiled or prof.ops_per_step is None:
        return {}
    n = len(profiled)
    outside = sum(max(0.0, sum(getattr(s, p) for s in profiled) / n - prof.op_time_by_phase.get(p, 0.0))
                  for p in _MODEL_PHASES)
    # The model's ops only, where the record keeps them by phase: ops the loop runs itself (a batch made by
    # a Python loop of tensor writes, spro's char-rnn in test set 24: ~20,000 a step) are the loop's work,
    # not the model's cost of calling ops. Older records count every op of the step, as before.
    by_phase = prof.ops_by_phase
    ops = sum(by_phase.get(p, 0.0) for p in _MODEL_PHASES) if by_phase else prof.ops_per_step
    overhead = outside + ops * (prof.cheap_op_time or 0.0)
    duration = sum(s.duration for s in profiled) / n
    out = {"framework_overhead_per_step": overhead,
           "framework_overhead_share": _at_most_one(ratio(overhead, duration)),
           "model_ops_per_step": ops if by_phase else None}
    if by_phase:
        small = sum(prof.small_op_time_by_phase.get(p, 0.0) for p in _MODEL_PHASES)
        out["dispatch_share"] = _at_most_one(ratio(outside + small, duration))
    elif prof.small_op_time_share is not None:
        small = prof.small_op_time_share * sum(prof.op_time_by_phase.values())
        out["dispatch_share"] = _at_most_one(ratio(outside + small, duration))
    return out


def _loop_ops(record: RunRecord, step_time: object) -> dict[str, object]:
    """The torch ops in the loop's own code (the step's "other" part), from the phase ranges."""
    by_phase = record.profiler.op_time_by_phase
    if not by_phase:
        return {}
    per_step = by_phase.get("other", 0.0) + by_phase.get("zero_grad", 0.0)
    share = ratio(per_step, step_time)  # type: ignore[arg-type]
    return {"other_op_time_per_step": per_step, "loop_op_share": _at_most_one(share)}


def compute(record: RunRecord) -> dict[str, object]:
    prof = record.profiler
    if not prof.availability.available or prof.steps <= 0:
        # The probe's words when the script ended first (probe/instrument.py, probe/profsummary.py), by itself: a
        # run that failed first is said to have failed, and more steps are not its remedy.
        ended = record.outcome.status == "completed" and \
            (prof.availability.reason or "").startswith("the script ended before the profiler window")
        training = sum(1 for step in record.steps if not step.validation)
        return {"profiler_available": False, "unprofiled_run_steps": training if ended else None,
                "unprofiled_time_limit": True if record.outcome.time_limited else None}
    steps = prof.steps
    cuda = prof.cuda_total if "CUDA" in prof.activities or prof.cuda_total > 0 else None
    launch = None
    if prof.toplevel_ops_per_step is not None and prof.mean_toplevel_op_time is not None:
        launch = prof.toplevel_ops_per_step * prof.mean_toplevel_op_time
    step_time = mean_step_time(steady_steps(record))
    return {
        **_loop_ops(record, step_time),
        **_framework_overhead(record),
        "cheap_op_time": prof.cheap_op_time,
        "small_op_time_share": prof.small_op_time_share,
        "profiler_available": True,
        "cpu_op_time_per_step": prof.cpu_total / steps,
        # By launch where the profile has it: a host that ran ahead of the GPU when the window opened leaves
        # its first steps' windows with kernels launched before the window (not recorded), and a window's
        # closing range can hold no step (a Fabric loop on an H200: 66 ms a step for 99 ms of kernels).
        "cuda_op_time_per_step": prof.kernel_work_per_step if prof.kernel_work_per_step is not None
        else (None if cuda is None else cuda / steps),
        "cpu_cuda_ratio": ratio(prof.cpu_total, cuda),
        "ops_per_step": prof.ops_per_step,
        "mean_op_time": ratio(prof.loop_op_time_per_step if prof.loop_op_time_per_step is not None
                              else prof.cpu_total / steps, prof.ops_per_step),
        "toplevel_ops_per_step": prof.toplevel_ops_per_step,
        "mean_toplevel_op_time": prof.mean_toplevel_op_time,
        "launches_per_step": prof.launches_per_step,
        "mean_kernel_time": prof.mean_kernel_time,
        "launch_overhead_per_step": launch,
        "gpu_idle_share": prof.gpu_idle_share,
        "syncs_per_step": prof.syncs_per_step,
        "item_calls_per_step": _item_calls(record),
        "sync_time_per_step": prof.sync_time_per_step,
        "sync_share": ratio(prof.sync_time_per_step, step_time),
        "h2d_copies_per_step": prof.h2d_copies_per_step,
        "h2d_bytes_per_step": prof.h2d_bytes_per_step,
        "h2d_pageable_bytes_per_step": prof.h2d_pageable_bytes_per_step,
        "h2d_pageable_share": _at_most_one(ratio(prof.h2d_pageable_bytes_per_step,
                                                 prof.h2d_bytes_per_step)),
        "cpu_tensor_creations_per_step": _creations(record),
        "matmul_conv_share": prof.matmul_conv_share,
        "fp32_matmul_conv_share": _fp32_share(record),
        "conv_ops": prof.conv_ops,
        "peak_memory_allocated": prof.peak_memory_allocated,
    }
