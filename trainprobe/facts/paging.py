"""The training process's time in the kernel, and the fresh pages it asked the kernel for.

The process sampler reads each process's user and system CPU seconds and its minor page faults
(/proc/PID/stat) beside its CPU use. Over the steady steps these say how much of the training
process's CPU went to the kernel, and how many fresh pages a step had the kernel map in and zero.
A training step allocates the same tensors every time: once the allocator keeps its memory, a step
faults almost nothing in. glibc's malloc does not keep blocks of 32 MiB and more (it maps each one
with mmap and unmaps it when freed) and gives a freed heap top back past its trim threshold, so a
CPU run with big activations has the kernel zero every page of them again at every step.
"""

from __future__ import annotations

import resource
from typing import Optional

from ..record import RunRecord
from ._stats import ratio
from .window import mean_step_time, steady_span, steady_steps

__all__ = ["FAMILY", "FACTS", "compute", "PAGE_BYTES"]

FAMILY = "host"

PAGE_BYTES = resource.getpagesize()

FACTS = {
    "main_system_cpu_share": ("share", "Of the CPU time the training process used during the steady steps, the "
                              "share the kernel spent on its behalf (system time, /proc/PID/stat)."),
    "main_page_faults_per_step": ("count", "Minor page faults of the training process per steady step: fresh "
                                  "pages the kernel mapped in and zeroed on first touch."),
    "main_faulted_bytes_per_step": ("bytes", "Those pages' bytes per steady step: memory the step had the kernel "
                                    "hand it again."),
    "main_system_seconds_per_step": ("s", "CPU seconds the kernel spent for the training process per steady "
                                     "step, all its threads together."),
    "main_fault_cost": ("s", "System CPU seconds per minor page fault over the steady steps: near a few "
                        "microseconds when faults are what the kernel time went to."),
    "glibc_malloc": ("bool", "The training process allocates host memory with glibc's malloc: Linux with glibc, "
                     "and no other allocator (jemalloc, tcmalloc, mimalloc) preloaded."),
    "malloc_env": ("text", "The glibc malloc settings the run's environment already set (MALLOC_*_ variables, "
                   "glibc.malloc tunables), or empty."),
    "suggested_malloc_trim_bytes": ("bytes", "A trim threshold that lets glibc keep what a step faults in: the "
                                    "faulted bytes per step, rounded up to a power of two, at least 64 MiB."),
}

_MIN_TRIM = 64 << 20


def _kernel_split(record: RunRecord, window) -> Optional[tuple[float, float, int, float]]:
    """User seconds, system seconds and minor faults of the training process over ``window``, and
    the wall time they span; None where the sampler could not read them."""
    mains = [p for p in record.samples.processes if p.role == "main"]
    if not mains:
        return None
    p = mains[0]
    n = len(p.t)
    if n < 2 or len(p.cpu_user) != n or len(p.cpu_system) != n or len(p.minor_faults) != n:
        return None
    lo, hi = window if window is not None else (p.t[0], p.t[-1])
    # The samples that bracket the window: the last at or before its start and the first at or after
    # its end (a window shorter than the 0.1 s sampling interval still gets the two around it).
    a = max((i for i in range(n) if p.t[i] <= lo), default=0)
    b = min((i for i in range(n) if p.t[i] >= hi), default=n - 1)
    wall = p.t[b] - p.t[a]
    if wall <= 0:
        return None
    return (p.cpu_user[b] - p.cpu_user[a], p.cpu_system[b] - p.cpu_system[a],
            p.minor_faults[b] - p.minor_faults[a], wall)


def _trim_bytes(faulted: float) -> int:
    size = _MIN_TRIM
    while size < faulted:
        size *= 2
    return size


def compute(record: RunRecord) -> dict[str, object]:
    env = record.environment
    out: dict[str, object] = {"malloc_env": " ".join(env.malloc_env)}
    if env.libc is not None:
        out["glibc_malloc"] = env.libc.startswith("glibc") and not env.malloc_preload
    steps = steady_steps(record)
    step = mean_step_time(steps)
    split = _kernel_split(record, steady_span(record))
    if split is None or not step:
        return out
    user, system, faults, wall = split
    per_step = step / wall  # the sampled span is not a whole number of steps: scale by time
    faulted = faults * per_step * PAGE_BYTES
    out.update({
        "main_system_cpu_share": ratio(system, user + system),
        "main_page_faults_per_step": faults * per_step,
        "main_faulted_bytes_per_step": faulted,
        "main_system_seconds_per_step": system * per_step,
        "main_fault_cost": ratio(system, faults),
        "suggested_malloc_trim_bytes": _trim_bytes(faulted),
    })
    return out
