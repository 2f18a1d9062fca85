"""What a trace file cannot tell: the facts a record read from a trace leaves unknown.

A torch.profiler trace holds the ops, kernels, copies and ranges of a few steps. It does not
hold the objects the live probe reads (the DataLoader's pin_memory, the optimizer's flags,
autocast, cudnn.benchmark) nor the samplers' series (cores, NVML). A record made from a trace
keeps those at their empty defaults, which a rule must not read as "off": they are unknown, and
the rules that need them say so (``not_judged``) instead of guessing.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["KNOWN_FROM_A_TRACE", "UNKNOWABLE_FAMILIES", "unknown_in_a_trace", "blank_unknowable"]

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
