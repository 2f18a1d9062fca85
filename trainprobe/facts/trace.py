"""What a trace file cannot tell: the facts a record read from a trace leaves unknown.

A torch.profiler trace holds the ops, kernels, copies and ranges of a few steps. It does not
hold the objects the live probe reads (the DataLoader's pin_memory, the optimizer's flags,
autocast, cudnn.benchmark) nor the samplers' series (cores, NVML). A record made from a trace
keeps those at their empty defaults, which a rule must not read as "off": they are unknown, and
the rules that need them say so (``not_judged``) instead of guessing.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["KNOWN_FROM_A_TRACE", "UNKNOWABLE_FAMILIES", "ABSENCE_PAST_A_CUT", "unknown_in_a_trace", "blank_unknowable",
           "blank_absence"]

# Families whose facts come from the live objects, the samplers and the Python profile.
UNKNOWABLE_FAMILIES = ("settings", "input", "host", "gpu", "code", "parts")

# Of those, the facts a trace does show (trace/record.py fills them from the trace's evidence).
KNOWN_FROM_A_TRACE = frozenset({
    "cuda_available", "cuda_used", "cpu_only", "gpu_count", "gpus_used", "model_on_cpu",
    "distributed", "world_size", "optimizer_type", "optimizer_steps", "outcome_status", "oom",
    "steps_recorded", "compiled", "has_conv",
    "loader_count", "num_workers",
    "gpu_name", "compute_capability", "tensor_cores", "gpu_bf16", "gpu_tf32", "gpu_memory_total",
})


# What a trace tells by something's absence, with the value that says "absent": past a cut, the kernels of
# a GPU, a compiled graph's or a collective's may lie. A trace of a ResNet on a V100 cut at a third of
# its file held only CPU ops, and "the model trains on the CPU while 4 GPUs are available" was critical.
ABSENCE_PAST_A_CUT = {"cuda_used": False, "cpu_only": True, "model_on_cpu": True, "gpus_used": 0,
                      "compiled": False, "distributed": False}


def blank_absence(values: dict[str, object]) -> None:
    """In a trace cut off early (``trace_cut``), the facts that say something is absent become unknown, in
    place; what the read part shows present stands."""
    if not values.get("trace_cut"):
        return
    for name, absent in ABSENCE_PAST_A_CUT.items():
        if name in values and values[name] == absent and type(values[name]) is type(absent):
            values[name] = None


def unknown_in_a_trace(catalog: dict) -> frozenset[str]:
    """``catalog``: fact name -> spec with a ``family``."""
    return frozenset(name for name, spec in catalog.items()
                     if spec.family in UNKNOWABLE_FAMILIES and name not in KNOWN_FROM_A_TRACE)


def blank_unknowable(values: dict[str, object], unknowable: Iterable[str]) -> None:
    """Set the facts a trace cannot tell to unknown (None), in place."""
    for name in unknowable:
        values[name] = None
    workers = values.get("num_workers")
    if isinstance(workers, int) and workers < 0:
        values["num_workers"] = None  # the multi-process iterator: some workers, how many unknown
