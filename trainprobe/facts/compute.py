"""Compute facts: the step's FLOPs, the hardware's ceiling, and how close the step comes to it.

``flops_per_step`` is counted (``probe/census.py``: matrix products, forward and backward, 2
FLOPs per multiply-add), never estimated from a model's size. ``achieved_flops_per_s`` divides
it by the mean steady step (``step_time``), the one base of every figure. The ceiling
(``peak_flops_per_s``) is for the dtype the products ran in: measured on a CPU, the datasheet's
on a GPU, TF32 when fp32 products may use it. MFU is their ratio. Each of them is None with a
``*_unknown_reason`` saying why, never a guess.
"""

from __future__ import annotations

from typing import Optional

from ..record import RunRecord
from .code import where
from ._stats import mean, ratio
from .window import mean_step_time, steady_steps

__all__ = ["FAMILY", "FACTS", "compute", "matmul_dtype", "peak_dtype"]

FAMILY = "compute"

_MEMORY_BOUND_KINDS = ("elementwise", "normalization", "reduction", "copy", "indexing")
_COMPUTE_KINDS = ("matmul", "conv", "attention")

FACTS = {
    "flops_per_step": ("FLOP", "FLOPs of one training step's matrix products (matmul, convolution, attention, "
                       "recurrent gates; forward and backward, 2 per multiply-add), counted by running a step "
                       "under trainprobe's counter."),
    "flops_per_sample": ("FLOP", "flops_per_step over the samples of the counted step."),
    "flops_forward_share": ("share", "Of the counted FLOPs, the share in the forward."),
    "flops_dtype": ("text", "The dtype most of the counted FLOPs ran in (fp32, bf16, fp16)."),
    "flops_unknown_reason": ("text", "Why the step's FLOPs are unknown (None when they were counted)."),
    "uncounted_ops": ("text", "Ops that do arithmetic but have no FLOP formula, left out of the count (listed, "
                      "not guessed); None when there were none."),
    "counted_bytes_per_step": ("bytes", "Tensor bytes the step's ops read and wrote (the counted step)."),
    "arithmetic_intensity": ("x", "flops_per_step over counted_bytes_per_step: FLOPs per byte moved. Well below "
                             "the hardware's peak FLOP/s over its bandwidth, a step is bound by memory traffic."),
    "achieved_flops_per_s": ("FLOP/s", "flops_per_step over the mean steady step (step_time)."),
    "device_step_time": ("s", "The mean steady step (step_time), or on a GPU the device's work per step "
                         "(device_busy_per_step) where that is longer: a step takes at least the device's work, and "
                         "a host that ran ahead of the queue times its steady steps short."),
    "peak_flops_per_s": ("FLOP/s", "The hardware's ceiling for the products' dtype: a matmul benchmark measured "
                         "on this CPU after the run, or the GPU's datasheet figure."),
    "peak_dtype": ("text", "The dtype the ceiling is for: the products' dtype, tf32 for fp32 products on a GPU "
                   "that allows TF32."),
    "peak_source": ("text", "'measured' (on this CPU) or 'datasheet' (the GPU's)."),
    "peak_device": ("text", "The CPU's model or the GPU's name the ceiling is for."),
    "peak_unknown_reason": ("text", "Why the ceiling is unknown (None when it is known)."),
    "peak_memory_bandwidth": ("B/s", "The memory bandwidth beside the ceiling: a measured copy on a CPU, the "
                              "datasheet's on a GPU."),
    "bf16_peak_speedup": ("x", "The ceiling's bf16 FLOP/s over its fp32 FLOP/s (both measured on a CPU, from "
                          "the datasheet on a GPU): how much faster this hardware multiplies in bfloat16."),
    "tensor_core_peak_speedup": ("x", "On a GPU, the datasheet's 16-bit tensor-core FLOP/s (bf16 where the GPU has "
                                 "it, else fp16) over the FLOP/s its float32 matrix products run at (TF32's when "
                                 "torch allows TF32, plain fp32's otherwise): the ceiling of what autocast gains "
                                 "on them."),
    "tf32_peak_speedup": ("x", "On a GPU, the datasheet's TF32 FLOP/s over its plain fp32 FLOP/s: the ceiling of "
                          "what allowing TF32 gains on float32 matrix products."),
    "peak_outside_cores": ("count", "Cores other programs kept busy while the CPU's peak was measured (it "
                           "reads low when they did)."),
    "mfu": ("share", "Model FLOPs utilization: achieved_flops_per_s over peak_flops_per_s."),
    "mfu_unknown_reason": ("text", "Why MFU is unknown (None when it is known)."),
    "mfu_while_busy": ("share", "On a GPU, MFU over the time the GPU was busy rather than the whole step: how "
                       "well its kernels use it while they run (mfu / gpu_busy_share)."),
    "memory_bound_share": ("share", "Of the compute ops' time (on a GPU: kernel time), the share in memory-bound "
                           "ops: element-wise, normalization, reduction, copies and indexing."),
    "model_memory_bound_share": ("share", "memory_bound_share outside the optimizer's step: the forward's and "
                                 "backward's memory-bound ops, which compiling the model fuses (the update is not "
                                 "part of the model's graph)."),
    "matmul_op_share": ("share", "Of the compute ops' time, the share in matrix products, convolutions and "
                        "attention."),
    "conv_op_share": ("share", "Of the compute ops' time, the share in convolutions (forward and backward)."),
    "optimizer_kind": ("text", "How the optimizer updates the parameters: for-loop (one op per parameter "
                       "tensor), foreach (batched across tensors) or fused (one kernel)."),
    "top_module": ("text", "The model's child module whose forward and backward took the most time (profiled window)."),
    "top_module_share": ("share", "Its forward and backward time over the mean steady step."),
    "census_step_time": ("s", "Mean duration of the counted step(s), the counter's own cost included."),
    "attention_math_time_per_step": ("s", "Seconds per profiled step in scaled_dot_product_attention's math path, "
                                     "its unfused fallback (the forward, with every op it runs; a CPU run)."),
    "attention_math_extra_per_step": ("s", "Of those, the seconds outside its matrix products: the score tensor's "
                                      "softmax, mask and dropout, which the fused kernel does not make whole."),
    "attention_call_at": ("text", "The script's scaled_dot_product_attention(...) call: 'file.py:line'."),
    "cuda_autocast_at": ("text", "On a run without CUDA, the script's autocast made for CUDA "
                         "(torch.cuda.amp.autocast(), torch.autocast(\"cuda\")), which torch turns off there: "
                         "'file.py:line'."),
    "attention_weights_calls_per_step": ("per_step", "nn.MultiheadAttention's training calls that made their attention "
                                         "weights (need_weights=True, its default), per training step."),
    "attention_weights_share": ("share", "Those calls' time over the training steps' time (every step of the run, "
                                "warm-up included, on both sides)."),
    "attention_weights_at": ("text", "The script's line that made the first such call: 'file.py:line'."),
}


def matmul_dtype(record: RunRecord) -> Optional[str]:
    """The dtype most counted FLOPs ran in."""
    by_dtype = record.compute.flops.by_dtype
    if not by_dtype:
        return None
    return max(by_dtype, key=by_dtype.get)  # type: ignore[arg-type]


def _tensor_core_speedups(record: RunRecord, peak) -> dict[str, object]:
    """The datasheet's ratios that bound what mixed precision and TF32 gain on float32 products (a GPU only)."""
    if peak.source != "datasheet" or not peak.availability.available:
        return {"tensor_core_peak_speedup": None, "tf32_peak_speedup": None}
    flops = peak.flops_per_s
    half = flops.get("bf16") or flops.get("fp16")
    return {"tensor_core_peak_speedup": ratio(half, flops.get(peak_dtype(record, "fp32") or "fp32")),
            "tf32_peak_speedup": ratio(flops.get("tf32"), flops.get("fp32"))}


def peak_dtype(record: RunRecord, dtype: Optional[str]) -> Optional[str]:
    """The ceiling's dtype: fp32 products run as TF32 on a GPU when torch allows it."""
    if dtype != "fp32" or record.compute.peak.source != "datasheet":
        return dtype
    s = record.settings
    if s.cuda_matmul_allow_tf32 or s.float32_matmul_precision in ("high", "medium"):
        return "tf32"
    return dtype


def _outside_cores(record: RunRecord) -> Optional[float]:
    """Cores other programs used while the CPU's peak was measured: the machine's busy cores less the
    run's own, over the measurement's seconds."""
    peak = record.compute.peak
    if peak.started is None or peak.duration is None:
        return None
    span = (peak.started - 0.15, peak.started + peak.duration + 0.15)  # samples every 0.1 s
    host, logical = record.samples.host, record.environment.logical_cores
    machine = [v for t, v in zip(host.t, host.cpu_percent) if span[0] <= t <= span[1]]
    if not machine or not logical:
        return None
    run = 0.0
    for p in record.samples.processes:
        values = [v for t, v in zip(p.t, p.cpu_percent) if span[0] <= t <= span[1]]
        run += (mean(values) or 0.0) / 100.0
    return max(0.0, (mean(machine) or 0.0) / 100.0 * logical - run)


def _optimizer_kind(record: RunRecord) -> Optional[str]:
    traced = record.profiler.optimizer_kind
    if traced:
        return traced
    optimizers = record.settings.optimizers
    if not optimizers:
        return None
    first = optimizers[0]
    if first.fused:
        return "fused"
    if first.foreach:
        return "foreach"
    if first.foreach is False:
        return "for-loop"
    # torch's default: foreach for parameters on a GPU, a for-loop on a CPU.
    return "foreach" if any(d.startswith("cuda") for d in first.param_devices) else "for-loop"


def _op_kind_shares(record: RunRecord) -> dict[str, object]:
    kinds = record.profiler.op_kinds or {}
    total = sum(kinds.values())
    out: dict[str, object] = {"model_memory_bound_share": record.profiler.model_memory_bound_share}
    if total <= 0:
        out.update(memory_bound_share=record.profiler.memory_bound_share, matmul_op_share=None, conv_op_share=None)
        return out
    out.update(memory_bound_share=sum(kinds.get(k, 0.0) for k in _MEMORY_BOUND_KINDS) / total,
               matmul_op_share=sum(kinds.get(k, 0.0) for k in _COMPUTE_KINDS) / total,
               conv_op_share=kinds.get("conv", 0.0) / total)
    return out


def _attention_math(record: RunRecord) -> dict[str, object]:
    """scaled_dot_product_attention's math path: its time, the part a fused kernel would not spend, the call."""
    math = record.profiler.attention_math_time_per_step
    products = record.profiler.attention_math_products_per_step or 0.0
    at = record.settings.attention_call_at
    return {"attention_math_time_per_step": math,
            "attention_math_extra_per_step": max(0.0, math - products) if math is not None else None,
            "attention_call_at": where(at, record.invocation.cwd) if at else None,
            **_attention_weights(record)}


def _attention_weights(record: RunRecord) -> dict[str, object]:
    """nn.MultiheadAttention's calls that made their weights: per step, their share of the steps, the line."""
    s = record.settings
    training = [step for step in record.steps if not step.validation]
    if not s.attention_weights_calls or not training:
        return {}
    total = sum(step.duration for step in training)
    return {"attention_weights_calls_per_step": s.attention_weights_calls / len(training),
            "attention_weights_share": min(1.0, s.attention_weights_seconds / total) if total > 0 else None,
            "attention_weights_at": where(s.attention_weights_at, record.invocation.cwd)}


def _top_module(record: RunRecord) -> dict[str, object]:
    modules = record.profiler.module_times
    timed = [(m.name, (m.forward_per_step or 0.0) + (m.backward_per_step or 0.0)) for m in modules]
    timed = [(name, t) for name, t in timed if t > 0]
    if not timed:
        return {}
    name, seconds = max(timed, key=lambda nt: nt[1])
    steady = steady_steps(record)
    step = mean_step_time(steady)
    model = sum(s.forward + s.backward + s.eval for s in steady) / len(steady) if steady else None
    if model is not None and seconds > 1.1 * model:
        # More than the model's whole time in a step: the profiled steps held other forwards of the module
        # (torchtnt's AutoUnit evaluated the test set inside them: "conv2 takes 100% of the step", of a
        # 0.5 s step whose forward and backward were 0.41 s). No figure rather than a false one.
        return {}
    share = ratio(seconds, step)
    return {"top_module": name, "top_module_share": min(1.0, share) if share is not None else None}


def compute(record: RunRecord) -> dict[str, object]:
    counted, peak = record.compute.flops, record.compute.peak
    out: dict[str, object] = {"optimizer_kind": _optimizer_kind(record)}
    out.update(_top_module(record))
    out.update(_op_kind_shares(record))
    out.update(_attention_math(record))
    autocast_at = record.settings.cuda_autocast_at
    out["cuda_autocast_at"] = where(autocast_at, record.invocation.cwd) if autocast_at else None
    dtype = matmul_dtype(record)
    total = counted.flops if counted.availability.available else None
    out["flops_unknown_reason"] = None if total is not None else (
        counted.availability.reason or "this record was made before trainprobe counted FLOPs")
    bytes_moved = sum(op.bytes for op in counted.ops) if counted.ops else None
    out.update({
        "flops_per_step": total,
        "flops_per_sample": ratio(total, counted.samples),
        "flops_forward_share": ratio(counted.by_phase.get("forward"), total) if total else None,
        "flops_dtype": dtype,
        "uncounted_ops": ", ".join(counted.uncounted) if counted.uncounted else None,
        "counted_bytes_per_step": bytes_moved,
        "arithmetic_intensity": ratio(total, bytes_moved),
        "census_step_time": counted.step_time,
    })
    wanted = peak_dtype(record, dtype) or ("fp32" if peak.source == "measured" else None)
    ceiling = peak.flops_per_s.get(wanted) if wanted and peak.availability.available else None
    out.update({
        "peak_dtype": wanted,
        "peak_flops_per_s": ceiling,
        "peak_source": peak.source,
        "peak_device": peak.device or None,
        "peak_memory_bandwidth": peak.memory_bytes_per_s if peak.availability.available else None,
        "bf16_peak_speedup": ratio(peak.flops_per_s.get("bf16"), peak.flops_per_s.get("fp32")),
        **_tensor_core_speedups(record, peak),
        "peak_outside_cores": _outside_cores(record),
    })
    if not peak.availability.available:
        out["peak_unknown_reason"] = peak.availability.reason or "this record was made before trainprobe measured peaks"
    elif wanted is None:
        out["peak_unknown_reason"] = "peak unknown: the dtype of the step's products is unknown (no step was counted)"
    elif ceiling is None:
        out["peak_unknown_reason"] = f"peak unknown: no {wanted} figure for {peak.device or 'this device'}"
    else:
        out["peak_unknown_reason"] = None
    return out


def achieved(values: dict[str, object]) -> dict[str, object]:
    """The facts that need the step time (facts/__init__ calls this after the step family)."""
    total, step = values.get("flops_per_step"), values.get("step_time")
    achieved_rate = ratio(total, step)
    samples_rate, per_sample = values.get("samples_per_second"), values.get("flops_per_sample")
    if isinstance(samples_rate, (int, float)) and isinstance(per_sample, (int, float)):
        achieved_rate = per_sample * samples_rate  # the batches of the steady steps, not the counted one's
    device_step = values.get("device_busy_per_step")
    # The GPU worked longer per step than the host's steady steps lasted: the host ran ahead of the queue, and
    # the steps that caught up were left out of the steady window (an epoch's start, where validation's .item()
    # drained it: fp32 matmuls on an H200 timed 6.1 ms a step for 8.8 ms of kernels). A step takes at least the
    # device's work; the gains of the rules that read the GPU's work take it as their base too.
    step_floor = max(step, device_step) if isinstance(step, (int, float)) and isinstance(device_step, (int, float)) \
        else step
    if isinstance(achieved_rate, (int, float)) and isinstance(step, (int, float)) and step > 0 \
            and step_floor > step:
        achieved_rate *= step / step_floor
    mfu = ratio(achieved_rate, values.get("peak_flops_per_s"))
    if mfu is not None and mfu > 1.0:
        # More than the hardware can do: the steps were timed short, not the GPU fast. A GPU runs
        # behind the host, and host step times that did not wait for it undercount the step (an fp32
        # MLP on an H200 measured before the probe drained the queue at window ends: "109% of the fp32
        # peak", 5.8 ms steps of 8.1). No figure rather than an impossible one.
        mfu, achieved_rate = None, None
        if values.get("cpu_only"):
            # No queue to run ahead of on a CPU: the step whose FLOPs were counted did more work than
            # the steady steps timed (speechbrain's x-vector, test set 11: 43 GFLOP counted, 14 ms steps),
            # or the peak read low: records made before probe/peak.py timed oneDNN's product beside the
            # BLAS's kept half the ceiling on an AMD EPYC (set 23's music RNN: oneDNN's LSTM above it).
            reason = ("the step's FLOPs at the measured step time exceed the CPU's measured peak: either the "
                      "step whose FLOPs were counted did more work than the steps timed, or the peak read low")
        else:
            reason = ("the step's FLOPs at the measured step time exceed the hardware's peak: the steps were "
                      "timed shorter than the device's work (the host ran ahead of the GPU)")
    elif mfu is not None:
        reason = None
    elif values.get("flops_unknown_reason"):
        reason = f"FLOPs unknown: {values['flops_unknown_reason']}"
    elif values.get("peak_unknown_reason"):
        reason = str(values["peak_unknown_reason"])
    else:
        reason = "no steady steps to time" if step is None else "unknown"
    busy = values.get("gpu_busy_share")
    while_busy = ratio(mfu, busy) if isinstance(busy, (int, float)) and busy > 0 else None
    return {"achieved_flops_per_s": achieved_rate, "device_step_time": step_floor, "mfu": mfu,
            "mfu_unknown_reason": reason,
            "mfu_while_busy": min(1.0, while_busy) if while_busy is not None else None}

