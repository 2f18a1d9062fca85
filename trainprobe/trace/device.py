"""The device's timeline in each step: busy, idle and why, and what the busy time was spent on.

Definitions (all per ProfilerStep window, on the device that ran the most kernel time):

* **busy**: covered by a kernel, a memcpy or a memset on any stream (their union);
* **idle**: the rest of the step. Each idle gap is put down to what kept the next piece of work
  from starting. The work that ends the gap was launched by a runtime call on the host (matched by
  ``correlation``). When that call came after the gap began, the device waited for the host, and
  the host's main thread at that time was fetching a batch (**data**), waiting in a sync (**sync**),
  or doing anything else (**host**); the stretch between the launch call and the work's start, and
  short gaps whose work was queued before the gap began, are the launch path's own latency
  (**launch**). A longer gap whose work was queued before it began (a CUDA graph's kernels, work
  behind an event on another stream or a peer rank) waited for other work (**dependency**).
* **device time by class** (a partition of busy): compute kernels (with memsets) first, then copies
  not hidden under compute (**copy**), then collective communication not hidden under either
  (**communication**: exposed communication).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Optional

from .classify import is_communication
from .collect import GPU_KINDS, Columns
from .intervals import Timeline

__all__ = ["DeviceSteps", "device_steps", "main_device"]

_KERNEL, _MEMCPY, _MEMSET = (GPU_KINDS.index(k) for k in ("kernel", "memcpy", "memset"))
_QUEUED_SLACK = 1.0  # µs: work launched this close to the gap's start was not waited for
# µs: a gap in queued work longer than this is not launch latency (a few µs between kernels) but
# a wait for other work: an event, another stream, a peer rank's collective.
_DEPENDENCY_GAP = 20.0


@dataclass
class DeviceSteps:
    """Sums over the steps, in µs (divide by the step count for per-step figures)."""

    busy: float = 0.0
    idle: dict[str, float] = field(default_factory=lambda: {"data": 0.0, "sync": 0.0, "host": 0.0, "launch": 0.0,
                                                           "dependency": 0.0})
    by_class: dict[str, float] = field(default_factory=lambda: {"compute": 0.0, "copy": 0.0, "communication": 0.0})
    boundary_idle: float = 0.0  # idle before a step's first work and after its last
    per_step_busy: list[float] = field(default_factory=list)
    # Kernel time launched in each step (by the host's launch call, not by when the kernel ran).
    per_step_launched: list[float] = field(default_factory=list)
    communication: float = 0.0  # all communication kernel time in the steps (overlapped or not)


def main_device(gpu: Columns) -> Optional[int]:
    """The device that ran the most kernel time (deviceProperties lists every GPU of the machine)."""
    totals: dict[int, float] = {}
    for i in range(len(gpu)):
        if gpu.kind[i] == _KERNEL:
            totals[gpu.device[i]] = totals.get(gpu.device[i], 0.0) + gpu.end[i] - gpu.ts[i]
    return max(totals, key=totals.__getitem__) if totals else None


def device_steps(gpu: Columns, names: list[str], device: int, steps: list[tuple[float, float]],
                 calls: dict[int, tuple[float, float]], loader: Timeline, syncs: Timeline) -> DeviceSteps:
    """``calls``: correlation -> (start, end) of the host's runtime call; ``loader`` and ``syncs``: the
    main thread's DataLoader fetches and sync waits."""
    compute, copies, comms, work = [], [], [], []
    step_starts = [lo for lo, _ in steps]
    launched = [0.0] * len(steps)
    for i in range(len(gpu)):
        if gpu.device[i] != device:
            continue
        span = (gpu.ts[i], gpu.end[i])
        kind = gpu.kind[i]
        work.append((gpu.ts[i], gpu.end[i], gpu.correlation[i]))
        call = calls.get(gpu.correlation[i])
        if kind == _KERNEL and call is not None:
            k = bisect_left(step_starts, call[0] + 1e-9) - 1  # the step whose window holds the launch call
            if k >= 0 and call[0] < steps[k][1]:
                launched[k] += gpu.end[i] - gpu.ts[i]
        if kind == _MEMCPY:
            copies.append(span)
        elif kind == _KERNEL and is_communication(names[gpu.name[i]]):
            comms.append(span)
        else:
            compute.append(span)
    work.sort()
    starts = [w[0] for w in work]
    busy = Timeline([(a, b) for a, b, _ in work])
    compute_tl = Timeline(compute)
    copy_tl = Timeline(copies).minus(compute_tl)
    comm_all = Timeline(comms)
    comm_tl = comm_all.minus(Timeline(compute_tl.spans + copy_tl.spans))
    out = DeviceSteps(per_step_launched=launched)
    for lo, hi in steps:
        covered = busy.covered(lo, hi)
        out.busy += covered
        out.per_step_busy.append(covered)
        out.by_class["compute"] += compute_tl.covered(lo, hi)
        out.by_class["copy"] += copy_tl.covered(lo, hi)
        out.by_class["communication"] += comm_tl.covered(lo, hi)
        out.communication += comm_all.covered(lo, hi)
        gaps = busy.gaps(lo, hi)
        if gaps and gaps[0][0] <= lo:
            out.boundary_idle += gaps[0][1] - gaps[0][0]
        if gaps and gaps[-1][1] >= hi and (len(gaps) > 1 or gaps[0][0] > lo):
            out.boundary_idle += gaps[-1][1] - gaps[-1][0]
        for a, b in gaps:
            _attribute(out.idle, a, b, work, starts, calls, loader, syncs)
    return out


def _attribute(idle: dict[str, float], a: float, b: float, work: list, starts: list[float],
               calls: dict[int, tuple[float, float]], loader: Timeline, syncs: Timeline) -> None:
    """Split the idle gap [a, b] by what the device waited for."""
    j = bisect_left(starts, b)
    call = calls.get(work[j][2]) if j < len(work) else None
    launch = call[0] if call is not None else None
    if launch is None:
        # The gap runs to the window's end, or its work has no launch on record: the host.
        waited = (a, b)
    elif launch <= a + _QUEUED_SLACK:
        # Queued work that did not start. While the host sat in a sync (a blocking copy into pageable
        # memory, a stream sync), the work it would launch next, and what the queue waits for, could
        # not come: that part is the sync's.
        sync = syncs.covered(a, b) if b - a > _DEPENDENCY_GAP else 0.0
        idle["sync"] += sync
        idle["dependency" if b - a > _DEPENDENCY_GAP else "launch"] += b - a - sync
        return
    else:
        waited = (a, min(launch, b))
        idle["launch"] += b - waited[1]
    lo, hi = waited
    data = loader.covered(lo, hi)
    sync = syncs.covered(lo, hi) if data < hi - lo else 0.0
    sync = min(sync, hi - lo - data)
    idle["data"] += data
    idle["sync"] += sync
    idle["host"] += max(0.0, hi - lo - data - sync)
