"""The device's timeline from the profile: where a step's GPU time went, and why the GPU idled.

The timeline covers the profiled steps, which the profiler makes longer on the host's side only: on
an H200 a 4.6 ms steady step of convolutions under AMP took 9.4 ms profiled, the GPU busy 3.8 ms of
either, so the profiled window showed the GPU idle 59% of the step where the steady step left it
idle 18%. The shares are therefore of the steady step (``steady_device``, after the families): the
GPU's busy seconds are the profiled steps' (the device's own work), its idle seconds are what the
steady step leaves beside them, split among the causes as the profiled timeline split its idle time.
A step timed shorter than the device's work (the host ran ahead of the queue) leaves the GPU no idle
time. The definitions are in trace/device.py. On a CPU-only run, or a GPU run whose profile has no
device timeline, these facts are unknown.
"""

from __future__ import annotations

from ..record import RunRecord
from ._stats import ratio

__all__ = ["FAMILY", "FACTS", "compute", "exposed_copy", "steady_device"]

FAMILY = "device"

FACTS = {
    "trace_cut": ("text", "How the trace file ended early ('the gzip stream ends early (the file was cut off): read "
                  "18,294 events; the rest of the trace is lost'): it is judged from the events before the cut, and "
                  "what it seems to lack may lie past it. None for a whole trace or a live run."),
    "from_trace": ("bool", "The record was read from a torch.profiler trace file (`trainprobe trace`), "
                   "not measured by running the script: settings the trace does not hold are unknown."),
    "device_timeline_available": ("bool", "The profile holds the device's timeline (kernels, copies, "
                                  "memsets) over whole steps."),
    "profiled_step_time": ("s", "Mean duration of the profiled steps, longer than the steady ones where the "
                           "profiler slows the host: this family's shares are of the steady step, the GPU's "
                           "idle time scaled to what the steady step leaves beside its busy time."),
    "device_busy_per_step": ("s", "Seconds per step the GPU computed, copied or communicated, from the "
                             "device's timeline: its own work for one step, which the profiler does not slow, "
                             "and the least a step can take."),
    "device_compute_share": ("share", "Share of the step the GPU ran compute kernels (and memsets)."),
    "device_copy_share": ("share", "Share of the step the GPU copied memory, not hidden under compute."),
    "exposed_communication_share": ("share", "Share of the step the GPU ran collective communication "
                                    "(NCCL) with no compute or copy beside it: communication the step "
                                    "waits for."),
    "exposed_communication_per_step": ("s", "Seconds per step of that exposed communication."),
    "communication_kernel_share": ("share", "Communication kernels' share of all kernel time."),
    "communication_overlap_share": ("share", "Of the communication kernels' time, the share hidden under "
                                    "compute or copies."),
    "gpu_idle_data_share": ("share", "Share of the step the GPU idled while the host fetched a batch."),
    "gpu_idle_sync_share": ("share", "Share of the step the GPU idled while the host waited in a sync."),
    "gpu_idle_host_share": ("share", "Share of the step the GPU idled while the host did other work "
                            "before launching the next kernel (Python, the framework, the CPU side of ops)."),
    "gpu_idle_launch_share": ("share", "Share of the step the GPU idled in the launch path itself: from a "
                              "launch call to its kernel's start, and short gaps between queued kernels."),
    "gpu_idle_dependency_share": ("share", "Share of the step the GPU idled with work queued that waited "
                                  "for other work: an event, another stream, a peer rank."),
    "gpu_idle_at_boundaries_share": ("share", "Share of the step the GPU idled before the step's first "
                                     "work and after its last: the host's work between steps, exposed."),
    "gpu_idle_at_boundaries_per_step": ("s", "Seconds per step of that idle time at step boundaries."),
    "kernels_per_step": ("per_step", "Kernels run per step on the GPU."),
    "median_kernel_time": ("s", "Median kernel duration (half the kernels are shorter)."),
    "tensor_core_share": ("share", "Of the matmul and convolution kernel time, the share on tensor cores "
                          "(from the kernels' names)."),
    "half_precision_share": ("share", "Of the matmul and convolution kernel time, the share in fp16 or "
                             "bf16."),
    "blocking_copies_per_step": ("per_step", "Host-device copies per step the host waited for (its "
                                 "copy call lasted until the copy was done)."),
    "d2h_copies_per_step": ("per_step", "Device-to-host copies per step."),
    "h2d_exposed_share": ("share", "Share of the step the host-to-device copies cost the run: on a GPU with "
                          "the device's timeline, the GPU's copying not hidden under compute plus its idling "
                          "while the host sat in a blocking call, at most the host's copy time; without it, "
                          "the host's copy time (a CPU run); unknown on a GPU run without the timeline."),
    "h2d_exposed_per_step": ("s", "Seconds per steady step of that cost."),
}


def _share(seconds: object, base: object) -> object:
    share = ratio(seconds, base)  # type: ignore[arg-type]
    return None if share is None else max(0.0, min(1.0, share))


def compute(record: RunRecord) -> dict[str, object]:
    prof = record.profiler
    out: dict[str, object] = {"from_trace": prof.source == "trace"}
    cut = record.invocation.options.get("cut") if out["from_trace"] else None
    out["trace_cut"] = str(cut) if cut else None
    timeline = bool(prof.availability.available and prof.steps and prof.gpu_busy_per_step is not None)
    out["device_timeline_available"] = timeline
    if not timeline:
        return out
    base = prof.wall / prof.steps
    idle = prof.gpu_idle_by_cause
    by_class = prof.device_time_by_class
    kernels = prof.kernel_time_by_class
    kernel_total = kernels.get("compute", 0.0) + kernels.get("communication", 0.0)
    out.update({
        "profiled_step_time": base,
        "device_busy_per_step": sum(float(by_class.get(name) or 0.0) for name in ("compute", "copy", "communication")),
        "device_compute_share": _share(by_class.get("compute"), base),
        "device_copy_share": _share(by_class.get("copy"), base),
        "exposed_communication_share": _share(by_class.get("communication"), base),
        "exposed_communication_per_step": by_class.get("communication"),
        "communication_kernel_share": ratio(kernels.get("communication"), kernel_total),
        "communication_overlap_share": prof.communication_overlap_share,
        "gpu_idle_data_share": _share(idle.get("data"), base),
        "gpu_idle_sync_share": _share(idle.get("sync"), base),
        "gpu_idle_host_share": _share(idle.get("host"), base),
        "gpu_idle_launch_share": _share(idle.get("launch"), base),
        "gpu_idle_dependency_share": _share(idle.get("dependency"), base),
        "gpu_idle_at_boundaries_share": _share(prof.gpu_idle_at_step_boundaries, base),
        "gpu_idle_at_boundaries_per_step": prof.gpu_idle_at_step_boundaries,
        "kernels_per_step": prof.kernels_per_step,
        "median_kernel_time": prof.median_kernel_time,
        "tensor_core_share": prof.tensor_core_share,
        "half_precision_share": prof.half_precision_share,
        "blocking_copies_per_step": prof.blocking_copies_per_step,
        "d2h_copies_per_step": prof.d2h_copies_per_step,
    })
    return out


_BUSY = ("device_compute_share", "device_copy_share", "exposed_communication_share")
_IDLE = ("gpu_idle_data_share", "gpu_idle_sync_share", "gpu_idle_host_share", "gpu_idle_launch_share",
         "gpu_idle_dependency_share", "gpu_idle_at_boundaries_share", "gpu_idle_share")


def steady_device(values: dict[str, object]) -> dict[str, object]:
    """The device's shares of the steady step (after the families; see the module's docstring).

    Only where the profiled steps ran longer than the steady ones: a steady step as long or longer
    (a trace read alone, a long step the profiler barely slows) keeps the profiled shares."""
    base, step = values.get("profiled_step_time"), values.get("step_time")
    if not values.get("device_timeline_available") or values.get("from_trace") or not isinstance(base, (int, float)) \
            or not isinstance(step, (int, float)) or step <= 0 or step >= base:
        return {}  # a trace's steps are its profiled steps: one window, nothing to rescale
    busy = {name: float(values.get(name) or 0.0) * base for name in _BUSY}  # seconds per step, as profiled
    busy_total = sum(busy.values())
    idle_profiled = max(0.0, base - busy_total)
    scale = min(1.0, max(0.0, step - busy_total) / idle_profiled) if idle_profiled > 0 else 0.0
    whole = max(step, busy_total)  # a step timed shorter than the device's work: the GPU was never idle
    out: dict[str, object] = {name: _share(seconds, whole) for name, seconds in busy.items()}
    for name in _IDLE:
        share = values.get(name)
        out[name] = _share(float(share) * base * scale, whole) if isinstance(share, (int, float)) else share
    at_boundaries = values.get("gpu_idle_at_boundaries_per_step")
    if isinstance(at_boundaries, (int, float)):
        out["gpu_idle_at_boundaries_per_step"] = at_boundaries * scale
    return out


def exposed_copy(values: dict[str, object]) -> dict[str, object]:
    """What copying batches to the device costs the step (after the families).

    The host's time in ``.to(device)`` is not that cost on a GPU: a copy from pageable memory is a
    blocking call that first waits for every kernel queued before it, so on a compute-bound step the
    host sits in it for most of the step while the GPU computes (GPT-2 in fp32 on an H200: 88% of the
    step "copying" 570 KB, the GPU busy 98% of it; the GPU campaign of 2026-11-26). The device's
    timeline says what the copies cost: the GPU copying with no compute beside it, and idling while the
    host waited in a blocking call (a sync)."""
    host_share, step_time = values.get("h2d_share"), values.get("step_time")
    if not isinstance(host_share, (int, float)):
        return {"h2d_exposed_share": None, "h2d_exposed_per_step": None}
    share = float(host_share)
    if values.get("device_timeline_available"):
        device = float(values.get("device_copy_share") or 0.0) + float(values.get("gpu_idle_sync_share") or 0.0)
        share = min(share, device)
    elif values.get("cuda_used"):
        # A GPU run without the timeline (the profiler window did not run: an early out-of-memory, a
        # short run): the host's copy time cannot be told from waiting for the GPU. Unknown, not a guess.
        return {"h2d_exposed_share": None, "h2d_exposed_per_step": None}
    per_step = share * float(step_time) if isinstance(step_time, (int, float)) else None
    return {"h2d_exposed_share": share, "h2d_exposed_per_step": per_step}
