"""Memory facts: what fills memory in a step, how much each sample costs, what fits, what leaks.

From the counting step's storages (``record.memory.census``; probe/census.py) on a CPU and a GPU
alike, and on a GPU from the CUDA allocator's figures per steady step. ``memory_activations``
follows the usual definition: the step's peak less what persists between steps (activations and
temporaries together); ``memory_saved_activations`` is the part the forward keeps for backward.
The largest batch that fits scales the activations per sample into the memory left once the
parameters, gradients and optimizer state are in place: an estimate whose base the message
states (the counted step's batch). A run that ran out of memory before its first step still gets
the parameters (read from the model when it was first called) and, for the optimizers whose state
is known per parameter, their state.

On a CPU the step's tensors share the limit with the rest of the process (Python, libraries, the
allocator's caches: half a gigabyte for torch alone), so the room they have is the free memory less
that overhead, measured when the count began as the kernel counts it for the limit in force
(resident memory, the data segment for ``ulimit -d``, the address space for ``ulimit -v``). A run
whose inputs vary in size (variable-length batches) is judged at the largest input it saw, with
the counted activations scaled by the input's elements: the assumption is said where it is used.
The fixes for a run that ran out of memory, each with what it saves, are in ``memory_fixes``.
"""

from __future__ import annotations

from typing import Optional

from ..record import PHASE_CENSUS, RunRecord
from ._stats import ratio
from .memory_fixes import FIX_FACTS, FIT_MARGIN, savings

__all__ = ["FAMILY", "FACTS", "compute", "OPTIMIZER_STATE_PER_PARAMETER"]

FAMILY = "memory"

# Tensors an optimizer keeps per parameter (its state), by class name: what the state costs when it
# could not be counted from the tensors (a run that ended before its first update).
OPTIMIZER_STATE_PER_PARAMETER = {"Adam": 2, "AdamW": 2, "NAdam": 2, "RAdam": 2, "Adamax": 2, "Adagrad": 1,
                                 "RMSprop": 1, "Adadelta": 2, "SGD": 1}

FACTS = {
    "memory_unknown_reason": ("text", "Why the step's memory was not counted (None when it was)."),
    "memory_device": ("text", "Where the parameters live: cpu or cuda."),
    "memory_parameters": ("bytes", "The model's parameters, counted from its tensors."),
    "memory_gradients": ("bytes", "The parameters' gradients when the optimizer steps."),
    "memory_optimizer_state": ("bytes", "The optimizers' state tensors (Adam: two per parameter)."),
    "memory_optimizer_state_estimated": ("bool", "The optimizer state is estimated from the optimizer's kind (no "
                                         "update was counted), not counted from its tensors."),
    "memory_buffers": ("bytes", "The model's buffers (batch norm's running statistics...)."),
    "memory_persistent": ("bytes", "What stays alive between steps (parameters, gradients, optimizer state and "
                          "anything else the step keeps), when a step begins."),
    "memory_step_peak": ("bytes", "The counted step's peak: everything followed alive at once."),
    "memory_peak_phase": ("text", "The step phase the peak came in (forward, backward, optimizer...)."),
    "memory_activations": ("bytes", "Activations and temporaries: the step's peak less what persists between "
                           "steps."),
    "memory_saved_activations": ("bytes", "What the forward kept alive for backward when backward began."),
    "memory_activations_per_sample": ("bytes", "What one sample of the batch costs: the peak outside the "
                                      "optimizer's update, less what persists between steps, over the counted "
                                      "step's samples."),
    "memory_optimizer_peak": ("bytes", "The peak during the optimizer's update (its temporaries come on top of "
                              "what persists, whatever the batch)."),
    "memory_batch_samples": ("count", "Samples in one batch of the counted step (the base of the per-sample "
                             "figures): the micro-batch where the script accumulates gradients."),
    "memory_effective_batch": ("count", "Samples per update in the counted step (memory_batch_samples times "
                               "memory_micro_batches)."),
    "memory_micro_batches": ("count", "DataLoader batches in the counted step: more than 1 where the script already "
                             "accumulates gradients."),
    "memory_limit": ("bytes", "Memory the run may use: the GPU's, else the tightest of the cgroup limit, "
                     "ulimit -v and the RAM."),
    "memory_limit_source": ("text", "What sets memory_limit."),
    "memory_free_at_start": ("bytes", "Of it, free when the run started."),
    "memory_peak_share": ("share", "The step's peak (on a GPU the allocator's reserved peak) over the memory "
                          "free at the start."),
    "memory_largest_batch": ("count", "The largest batch whose estimated peak fits the memory free at the start: "
                             "the persistent memory plus memory_activations_per_sample per sample (90% of the "
                             "free memory, leaving room for the allocator)."),
    "memory_largest_batch_peak": ("bytes", "The estimated peak at memory_largest_batch."),
    "memory_growth_per_step": ("bytes", "Memory a steady step leaves behind for good: made in one step and still "
                               "alive a step later (the counted steps), or on a GPU the slope of what stays "
                               "allocated between steady steps."),
    "memory_growth_site": ("text", "Where most of the memory that outlived its step was made: 'file:line'."),
    "memory_growth_steps": ("count", "Steady steps the GPU's allocated memory grew over (0 on a CPU)."),
    "gpu_allocated_peak": ("bytes", "The CUDA allocator's peak allocated bytes over the steady steps."),
    "gpu_reserved_peak": ("bytes", "Its peak reserved bytes (allocated plus its cache)."),
    "gpu_reserved_unused_share": ("share", "Of the reserved peak, the share not allocated at the peak: the "
                                  "allocator's cache and fragmentation."),
    "memory_failed_request": ("bytes", "What the allocation that ran out of memory asked for (from its error)."),
    "checkpoint_blocks": ("text", "The repeated blocks activation checkpointing would wrap: 'container (N × Type)'."),
    "checkpoint_container": ("text", "The container of those blocks in the model ('blocks', 'transformer.h'): what "
                             "--verify's activation checkpointing wraps."),
    "checkpoint_block_count": ("count", "How many of them."),
    "checkpoint_saved_activations": ("bytes", "What their forwards keep for backward."),
    "checkpoint_saving": ("bytes", "What checkpointing them would save: their kept activations less their inputs, "
                          "which checkpointing keeps."),
    "memory_overhead": ("bytes", "On a CPU, the process's memory besides its tensors when the count began (Python, "
                        "libraries, allocator caches), as the limit in force counts it: resident memory, the data "
                        "segment (ulimit -d) or the address space (ulimit -v)."),
    "memory_room": ("bytes", "Memory the step's tensors may use: memory_free_at_start less memory_overhead, less a "
                    "tenth for the allocator's rounding and the framework."),
    "memory_counted_input": ("text", "Shape of the counted step's first training input ('16x128')."),
    "memory_largest_input": ("text", "Shape of the largest first input a training forward saw (by elements): the "
                             "longest batch of a variable-length run."),
    "memory_largest_input_step": ("count", "The step the largest input came in."),
    "memory_input_scale": ("x", "memory_largest_input's elements over memory_counted_input's (1: the counted step "
                           "had the largest input)."),
    "memory_activations_at_largest_input": ("bytes", "The counted step's activations (its peak outside the "
                                            "optimizer less what persists) scaled by memory_input_scale: assumes "
                                            "activations grow in proportion to the input's elements."),
    "memory_peak_at_largest_input": ("bytes", "The step's estimated peak at the largest input: what persists plus "
                                     "memory_activations_at_largest_input (at least the counted peak)."),
    "memory_growth_share": ("share", "memory_growth_per_step over the counted step's peak."),
    "memory_growth_call_site": ("text", "The user's line that called into torch to make most of what outlived its "
                                "step ('file:line': the loop's model(x)), when it differs from memory_growth_site."),
    "memory_growth_phase": ("text", "The step phase most of what outlived its step was made in (forward, backward, "
                            "other...)."),
    "memory_growth_storages": ("count", "How many tensor storages a step left behind: one or two for kept outputs, "
                               "many for a kept autograd graph."),
    "memory_steps_to_fill": ("count", "Steps until memory_growth_per_step fills memory_room, from the counted "
                             "step's peak."),
    **FIX_FACTS,
}

_FIT_MARGIN = FIT_MARGIN


def _slope(xs: list[float], ys: list[float]) -> Optional[float]:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den > 0 else None


def _device_steps(record: RunRecord) -> tuple[dict[str, object], Optional[float]]:
    """The allocator's figures over the steady steps, and the slope of what stays allocated (bytes/step)."""
    d = record.memory.device_steps
    if not d.step:
        return {}, None
    allocated, reserved = max(d.allocated_peak), max(d.reserved_peak)
    slope = _slope([float(s) for s in d.step], [float(a) for a in d.allocated_end])
    grew = sum(1 for a, b in zip(d.allocated_end, d.allocated_end[1:]) if b > a)
    return {"gpu_allocated_peak": allocated, "gpu_reserved_peak": reserved,
            "gpu_reserved_unused_share": ratio(reserved - allocated, reserved),
            "memory_growth_steps": grew}, slope


def _before_first_step(record: RunRecord) -> dict[str, object]:
    """What can be known without a counted step: the parameters, and the state the optimizers would hold."""
    models = record.settings.models
    params = sum(m.param_bytes for m in models) if models else None
    out: dict[str, object] = {"memory_parameters": params or None}
    optimizers = record.settings.optimizers
    if params and optimizers:
        kind = optimizers[0].type.rsplit(".", 1)[-1]
        per = OPTIMIZER_STATE_PER_PARAMETER.get(kind)
        if per is not None:
            out["memory_optimizer_state"] = params * per
            out["memory_optimizer_state_estimated"] = True
    return out


def _checkpointing(record: RunRecord) -> dict[str, object]:
    blocks = record.memory.census.blocks
    if not blocks:
        return {}
    best = max(blocks, key=lambda b: b.saved)
    return {"checkpoint_blocks": f"{best.container} ({best.count} × {best.block_type})",
            "checkpoint_container": best.container,
            "checkpoint_block_count": best.count, "checkpoint_saved_activations": best.saved,
            "checkpoint_saving": max(0, best.saved - best.inputs)}


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _overhead(record: RunRecord) -> Optional[int]:
    """On a CPU, the process's memory besides its tensors when the count began, as the limit counts it."""
    from ..probe.memory import LIMIT_MEASURES

    census = record.memory.census
    if census.device != "cpu" or census.at_step_start is None:
        return None
    measure = LIMIT_MEASURES.get(record.memory.limit_source or "", "resident")
    figure = {"resident": census.resident_at_start, "data": census.data_at_start,
              "address_space": census.address_space_at_start}.get(measure)
    return max(0, figure - census.at_step_start) if figure is not None else None


def _room(out: dict[str, object]) -> Optional[int]:
    free = out.get("memory_free_at_start")
    if not _number(free):
        return None
    overhead = out.get("memory_overhead")
    left = free - (overhead if _number(overhead) else 0)  # type: ignore[operator]
    return max(0, int(left * _FIT_MARGIN))


def _fits(out: dict[str, object]) -> dict[str, object]:
    room, fixed = out.get("memory_room"), out.get("memory_persistent")
    per, batch = out.get("memory_activations_per_sample"), out.get("memory_batch_samples")
    if not all(_number(v) and v > 0 for v in (room, fixed, per, batch)):  # type: ignore[operator]
        return {}
    left = room - fixed  # type: ignore[operator]
    optimizer = out.get("memory_optimizer_peak")
    if _number(optimizer) and optimizer > room:  # type: ignore[operator]
        left = 0  # the update alone does not fit, whatever the batch
    largest = int(left // per) if left > 0 else 0  # type: ignore[operator]
    peak = fixed + largest * per if largest else None  # type: ignore[operator]
    if peak is not None and _number(optimizer):
        peak = max(peak, optimizer)
    return {"memory_largest_batch": largest, "memory_largest_batch_peak": peak}


def _largest_input(record: RunRecord, out: dict[str, object]) -> dict[str, object]:
    """The counted activations scaled to the largest input the run saw (by its elements)."""
    memory, census = record.memory, record.memory.census
    result: dict[str, object] = {"memory_counted_input": census.input_shape,
                                 "memory_largest_input": memory.largest_input_shape,
                                 "memory_largest_input_step": memory.largest_input_step}
    fixed, per, samples = out.get("memory_persistent"), out.get("memory_activations_per_sample"), \
        out.get("memory_batch_samples")
    if not (_number(fixed) and _number(per) and samples):
        return result
    scale = 1.0
    if census.input_elements and memory.largest_input_elements:
        scale = max(1.0, memory.largest_input_elements / census.input_elements)
    activations = per * samples * scale  # type: ignore[operator]
    peak = max(fixed + activations, out.get("memory_step_peak") or 0)  # type: ignore[operator]
    result.update({"memory_input_scale": scale if census.input_elements and memory.largest_input_elements else None,
                   "memory_activations_at_largest_input": int(activations),
                   "memory_peak_at_largest_input": int(peak)})
    return result


def _growth(record: RunRecord, out: dict[str, object], slope: Optional[float]) -> dict[str, object]:
    memory, census = record.memory, record.memory.census
    growth = census.retained_per_step
    if isinstance(slope, (int, float)) and out.get("memory_growth_steps", 0) >= len(memory.device_steps.step) // 2:
        growth = max(growth or 0, int(slope))
    peak = census.step_peak or out.get("gpu_allocated_peak")  # a GPU run without a counted step: the allocator's
    result: dict[str, object] = {"memory_growth_per_step": growth,
                                 "memory_growth_share": ratio(growth, peak),  # type: ignore[arg-type]
                                 "memory_growth_storages": census.retained_storages}
    if census.retained_sites:
        result["memory_growth_site"] = max(census.retained_sites, key=census.retained_sites.get)  # type: ignore[arg-type]
    if census.retained_callers:
        caller = max(census.retained_callers, key=census.retained_callers.get)  # type: ignore[arg-type]
        if caller != result.get("memory_growth_site"):
            result["memory_growth_call_site"] = caller
    if census.retained_phases:
        result["memory_growth_phase"] = max(census.retained_phases, key=census.retained_phases.get)  # type: ignore[arg-type]
    room = out.get("memory_room")
    if growth and _number(room) and _number(peak):
        result["memory_steps_to_fill"] = max(0, int((room - peak) // growth))  # type: ignore[operator]
    return result


def _micro_batches(record: RunRecord) -> int:
    """DataLoader batches in a counted step: more than one where the script accumulates gradients, and the
    activations then are those of one micro-batch (they are freed by each backward)."""
    counted = sorted(s.batches for s in record.steps if s.phase == PHASE_CENSUS and s.batches)
    return max(1, counted[len(counted) // 2]) if counted else 1


def compute(record: RunRecord) -> dict[str, object]:
    memory, census = record.memory, record.memory.census
    out: dict[str, object] = {
        "memory_limit": memory.limit, "memory_limit_source": memory.limit_source,
        "memory_free_at_start": memory.free_at_start, "memory_failed_request": memory.failed_request,
    }
    device, slope = _device_steps(record)
    out.update(device)
    if not census.availability.available:
        out["memory_unknown_reason"] = census.availability.reason or \
            "this record was made before trainprobe counted memory"
        out.update(_before_first_step(record))
        out["memory_room"] = _room(out)
        if memory.device_steps.step:  # a GPU's allocator still tells growth between steps
            out.update(_growth(record, out, slope))
        out.update(savings(record, out))
        return out
    activations = None
    if census.step_peak is not None and census.at_step_start is not None:
        activations = max(0, census.step_peak - census.at_step_start)
    micro_batches = _micro_batches(record)
    samples = census.samples // micro_batches if census.samples else None  # what the activations are of
    out.update({
        "memory_unknown_reason": None, "memory_device": census.device,
        "memory_parameters": census.parameters, "memory_gradients": census.gradients,
        "memory_optimizer_state": census.optimizer_state, "memory_optimizer_state_estimated": False,
        "memory_buffers": census.buffers, "memory_persistent": census.at_step_start,
        "memory_step_peak": census.step_peak, "memory_peak_phase": census.peak_phase,
        "memory_activations": activations, "memory_saved_activations": census.saved_activations,
        "memory_batch_samples": samples, "memory_effective_batch": census.samples,
        "memory_micro_batches": micro_batches,
        "memory_activations_per_sample": ratio(max(0, census.activation_peak - census.at_step_start),
                                               samples)  # type: ignore[arg-type]
        if census.activation_peak is not None and census.at_step_start is not None else None,
        "memory_optimizer_peak": census.step_peak if census.peak_phase == "optimizer" else None,
        "memory_overhead": _overhead(record),
    })
    out["memory_room"] = _room(out)
    peak = out.get("gpu_reserved_peak") or census.step_peak
    out["memory_peak_share"] = ratio(peak, memory.free_at_start)  # type: ignore[arg-type]
    out.update(_growth(record, out, slope))
    out.update(_checkpointing(record))
    out.update(_fits(out))
    out.update(_largest_input(record, out))
    out.update(savings(record, out))
    return out
