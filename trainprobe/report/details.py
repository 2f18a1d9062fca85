"""The report's reference sections: top ops, Python hotspots, environment and settings.

Same contract as sections.py: pure functions from the run record to view
data, already formatted; a missing measurement says why.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from ..findings import Diagnosis
from ..notebook.cells import describe as describe_cell, describe_site
from ..record import RunRecord
from .. import display
from .sections import bare_reason

__all__ = ["HOTSPOTS_SHOWN", "ops_section", "hotspots_section", "environment_section", "settings_section",
           "device_section"]

# Rows of a hotspot or op table shown before "more": the rest fold away.
HOTSPOTS_SHOWN = 12


def ops_section(record: RunRecord) -> dict[str, Any]:
    p = record.profiler
    def rows(ops, key):
        top = max((getattr(o, key) for o in ops), default=0.0) or 1.0
        return [{"name": o.name, "calls": display.count(o.calls), "self_cpu": display.seconds(o.self_cpu),
                 "cpu_total": display.seconds(o.cpu_total), "self_cuda": display.seconds(o.self_cuda),
                 "cuda_total": display.seconds(o.cuda_total), "shapes": o.input_shapes or "",
                 "bar": getattr(o, key) / top} for o in ops]
    summary = [
        ("steps profiled", display.count(p.steps)), ("window", display.seconds(p.wall)),
        ("ops per step", display.number(p.ops_per_step)),
        ("top-level ops per step", display.number(p.toplevel_ops_per_step)),
        ("mean CPU time per top-level op", display.seconds(p.mean_toplevel_op_time)),
        ("kernel launches per step", display.number(p.launches_per_step)),
        ("mean kernel time", display.seconds(p.mean_kernel_time)),
        ("GPU idle in window", display.share(p.gpu_idle_share)),
        ("host→device copies per step", display.number(p.h2d_copies_per_step)),
        ("host→device bytes per step", display.nbytes(p.h2d_bytes_per_step)),
        ("… from pageable memory", display.nbytes(p.h2d_pageable_bytes_per_step)),
        ("syncs per step", display.number(p.syncs_per_step)),
        ("matmul/conv share", display.share(p.matmul_conv_share)),
        ("… in fp32", display.share(p.fp32_matmul_conv_share)),
        ("peak memory allocated", display.nbytes(p.peak_memory_allocated)),
    ]
    return {
        "available": p.availability.available,
        "reason": bare_reason(p.availability.reason or "the profiler window did not run"),
        "activities": ", ".join(p.activities),
        "summary": [(k, v) for k, v in summary if v != display.UNKNOWN],
        "sync_calls": [(k, display.number(v)) for k, v in sorted(p.sync_calls.items(), key=lambda kv: -kv[1])],
        "cpu": rows(p.top_cpu_ops, "self_cpu"),
        "cuda": rows(p.top_cuda_ops, "self_cuda"), "shown": HOTSPOTS_SHOWN,
        "trace_path": p.trace_path,
    }


_TRAINPROBE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _caller(caller: str, roots: Sequence[str]) -> str:
    """A part's caller, "name() /path/file.py:12", as "name() at file.py:12"."""
    if not caller:
        return ""
    name, _, site = caller.rpartition(" ")
    path, _, line = site.rpartition(":")
    return f"{name} at {_where(path, int(line), roots)}" if line.isdigit() and path else caller


def _where(path: str, line: int, roots: Sequence[str]) -> str:
    """A short location: relative to the script's folder, the working folder or the library root;
    in a notebook, its cell (``cell 6, line 4``)."""
    cell = describe_cell(path, line)
    if cell:
        return cell
    for root in roots:
        root = root.rstrip("/")
        if root and path.startswith(root + "/"):
            path = path[len(root) + 1:]
            break
    else:
        if "-packages/" in path:
            path = path.split("-packages/", 1)[1]
    return f"{path}:{line}" if line else path


def hotspots_section(record: RunRecord) -> dict[str, Any]:
    h = record.hotspots
    inv = record.invocation
    roots = [os.path.dirname(inv.script) if inv.script else "", inv.cwd, _TRAINPROBE_ROOT]
    def rows(funcs, window):
        return [{"function": fn.function, "where": _where(fn.file, fn.line, roots), "calls": display.count(fn.calls),
                 "self": display.seconds(fn.self_time), "cumulative": display.seconds(fn.cumulative),
                 "self_share": display.share(fn.self_time / window) if window else display.UNKNOWN,
                 "category": fn.category or "", "user": fn.user_code} for fn in funcs]
    cats = sorted(h.worker_categories.items(), key=lambda kv: -kv[1])

    def parts(items, total):
        return [{"label": p.label, "share": display.share(p.seconds / total) if total else display.UNKNOWN,
                 "seconds": display.seconds(p.seconds), "ops": display.share(p.op_seconds / p.seconds) if p.seconds else "",
                 "caller": _caller(p.caller, roots), "owner": p.owner} for p in items]
    phase = h.phase_seconds
    return {
        "loop_parts": parts(h.loop_parts, phase.get("loop")),
        "data_parts": parts(h.data_parts, phase.get("data")),
        "available": h.availability.available,
        "reason": bare_reason(h.availability.reason or "the cProfile window did not run"),
        "window": display.seconds(h.window), "steps": h.steps, "worker_window": display.seconds(h.worker_window),
        "main": rows(h.main, h.window), "workers": rows(h.workers, h.worker_window), "shown": HOTSPOTS_SHOWN,
        "categories": [{"label": k, "share": v, "text": display.share(v)} for k, v in cats if v > 0],
    }


def environment_section(record: RunRecord) -> dict[str, Any]:
    e = record.environment
    pillow = e.pillow or display.UNKNOWN
    if e.pillow:
        flavour = "Pillow-SIMD" if e.pillow_simd else "Pillow"
        turbo = {True: ", libjpeg-turbo", False: ", plain libjpeg", None: ""}[e.libjpeg_turbo]
        pillow = f"{flavour} {e.pillow}{turbo}"
    cores = f"{display.count(e.logical_cores)} logical, {display.count(e.physical_cores)} physical"
    if e.usable_cores is not None:
        cores += f", {display.count(e.usable_cores)} usable by this run"
    rows = [
        ("Python", e.python), ("Platform", e.platform),
        ("PyTorch", (e.torch or display.UNKNOWN) + (f" (CUDA {e.torch_cuda_build})" if e.torch_cuda_build else "")),
        ("torchvision", e.torchvision or display.UNKNOWN),
        ("cuDNN", str(e.cudnn) if e.cudnn else display.UNKNOWN),
        ("CUDA available", display.yes_no(e.cuda_available)),
        ("NVIDIA driver", e.driver or display.UNKNOWN),
        ("NVML", "available" if e.nvml.available else f"unavailable: {bare_reason(e.nvml.reason or 'unknown reason')}"),
        ("CPU", e.cpu_model or display.UNKNOWN), ("Cores", cores),
        ("CPU quota (cgroup)", display.number(e.cgroup_cpu_limit) + " cores" if e.cgroup_cpu_limit else "none"),
        ("RAM", display.nbytes(e.ram_total)), ("Swap", display.nbytes(e.swap_total)),
        ("/dev/shm", display.nbytes(e.shm_total)), ("Pillow", pillow),
        ("torch threads", f"{display.count(e.torch_threads)} intra-op, {display.count(e.torch_interop_threads)} inter-op"),
    ]
    gpus = [{"index": g.index, "name": g.name, "memory": display.nbytes(g.memory_total),
             "cc": g.compute_capability or display.UNKNOWN,
             "power": f"{display.number(g.power_limit_w)} W" + (f" (max {display.number(g.power_max_w)} W)" if g.power_max_w else "")
             if g.power_limit_w else display.UNKNOWN,
             "pcie": _pcie(g), "bf16": display.yes_no(g.bf16), "tf32": display.yes_no(g.tf32)} for g in e.gpus]
    disks = [{"path": d.path, "device": d.device or display.UNKNOWN, "fstype": d.fstype or display.UNKNOWN,
              "kind": "network" if d.network else ("rotational (hint)" if d.rotational else
                                                   ("solid-state (hint)" if d.rotational is False else display.UNKNOWN)),
              "free": f"{display.nbytes(d.free_bytes)} of {display.nbytes(d.total_bytes)}"} for d in e.disks]
    return {"rows": rows, "gpus": gpus, "disks": disks,
            "gpu_reason": None if e.gpus else bare_reason(e.nvml.reason or "no NVIDIA GPU was found")}


def _pcie(g) -> str:
    if g.pcie_gen is None:
        return display.UNKNOWN
    now = f"gen {g.pcie_gen} ×{g.pcie_width or '?'}"
    if g.pcie_gen_max is not None:
        now += f" (max gen {g.pcie_gen_max} ×{g.pcie_width_max or '?'})"
    return now


def settings_section(record: RunRecord) -> dict[str, Any]:
    s = record.settings
    loaders = [{
        "title": f"DataLoader {d.loader_id}" + (" (training)" if d.used_in_training else ""),
        "dataset": d.dataset_type + (f" ({display.count(d.dataset_len)} items)" if d.dataset_len is not None else ""),
        "created": describe_site(d.built_at or d.created_at) or "",
        "rows": [
            ("batch size", display.count(d.batch_size)), ("num_workers", str(d.num_workers)),
            ("pin_memory", display.yes_no(d.pin_memory)), ("persistent_workers", display.yes_no(d.persistent_workers)),
            ("prefetch_factor", display.count(d.prefetch_factor)), ("worker start method", d.start_method or display.UNKNOWN),
            ("drop_last", display.yes_no(d.drop_last)), ("sampler", (d.sampler_type or display.UNKNOWN).rsplit(".", 1)[-1]),
            ("batches drawn", display.count(d.batches)), ("iterators (≈ epochs)", display.count(d.iterations)),
            ("time the loop waited", display.seconds(d.wait_total)), ("first batch took", display.seconds(d.first_batch_wait)),
        ],
    } for d in s.dataloaders]
    optimizers = [{"type": o.type, "lr": display.number(o.lr), "wd": display.number(o.weight_decay),
                   "foreach": {None: "default"}.get(o.foreach, display.yes_no(o.foreach)),
                   "fused": {None: "default"}.get(o.fused, display.yes_no(o.fused)),
                   "params": display.count(o.params), "groups": o.param_groups,
                   "devices": ", ".join(o.param_devices), "steps": display.count(o.steps)} for o in s.optimizers]
    schedulers = [{"type": c.type, "steps": display.count(c.steps), "per_step": display.number(c.per_optimizer_step)}
                  for c in s.schedulers]
    models = [{"type": m.type, "wrapper": m.wrapper or "", "params": display.count(m.params),
               "trainable": display.count(m.trainable_params), "size": display.nbytes(m.param_bytes),
               "dtypes": ", ".join(m.dtypes), "devices": ", ".join(m.devices),
               "channels_last": display.yes_no(m.channels_last), "calls": f"{display.count(m.train_calls)} train, {display.count(m.eval_calls)} eval",
               "shapes": ", ".join(m.input_shapes)} for m in s.models]
    amp = "no"
    if s.autocast_forwards:
        amp = f"yes: {display.count(s.autocast_forwards)} forwards under autocast({s.autocast_device or '?'}, {s.autocast_dtype or '?'})"
    flags = [
        ("Framework running the loop", _framework_text(s)),
        ("Training loop at", describe_site(s.loop_at) or display.UNKNOWN),
        ("Devices used", ", ".join(s.devices_used) or display.UNKNOWN),
        ("Mixed precision (AMP)", amp), ("GradScaler", display.yes_no(s.grad_scaler_used)),
        ("torch.compile", "yes" + (f" ({s.compile_graphs} graphs, {s.compile_recompiles} recompiles)"
                                   if s.compile_graphs is not None else "") if s.compiled else "no"),
        ("cudnn.benchmark", display.yes_no(s.cudnn_benchmark)), ("cudnn.deterministic", display.yes_no(s.cudnn_deterministic)),
        ("deterministic algorithms", display.yes_no(s.deterministic_algorithms)),
        ("float32 matmul precision", s.float32_matmul_precision or display.UNKNOWN),
        ("TF32 (matmul / cuDNN)", f"{display.yes_no(s.cuda_matmul_allow_tf32)} / {display.yes_no(s.cudnn_allow_tf32)}"),
        ("anomaly detection", display.yes_no(s.anomaly_detection)),
        ("autograd profiler (the script's own)", display.yes_no(s.autograd_profiler_enabled)),
        ("CUDA_LAUNCH_BLOCKING", display.yes_no(s.cuda_launch_blocking)),
        ("sync debug mode", display.UNKNOWN if s.sync_debug_mode is None else str(s.sync_debug_mode)),
        ("DataParallel / distributed", f"{display.yes_no(s.data_parallel)} / {display.yes_no(s.distributed)}"
         + (f" (world size {s.world_size})" if s.world_size else "")),
        ("torch threads", display.count(s.torch_threads)),
        ("step boundary", s.step_boundary),
        ("backward calls / optimizer steps", f"{display.count(s.backward_calls)} / {display.count(s.optimizer_steps)}"),
        ("gradient accumulation", display.number(s.grad_accumulation)),
        ("zero_grad calls (set_to_none=False)", f"{display.count(s.zero_grad_calls)} ({display.count(s.zero_grad_set_to_none_false)})"),
    ]
    return {"loaders": loaders, "optimizers": optimizers, "schedulers": schedulers, "models": models,
            "flags": flags, "env_flags": sorted(s.env_flags.items())}


def _framework_text(s) -> str:
    fw = s.framework
    if fw is None:
        return display.UNKNOWN
    if not fw.name:
        return "none: the script's own loop"
    text = fw.name + (f" {fw.version}" if fw.version else "")
    if fw.config_call and fw.config_at:
        text += f" ({fw.config_call}(...) at {describe_site(fw.config_at)})"
    return text


# The device's step, in the order the overview shows it: what the GPU did, then why it idled.
_DEVICE_ROWS = (
    ("device_compute_share", "computing (kernels and memsets)"),
    ("device_copy_share", "copying memory, not under compute"),
    ("exposed_communication_share", "communicating, with nothing else running"),
    ("gpu_idle_data_share", "idle while the host fetched a batch (DataLoader)"),
    ("gpu_idle_sync_share", "idle while the host waited in a sync"),
    ("gpu_idle_host_share", "idle while the host ran its own code (CPU exec)"),
    ("gpu_idle_launch_share", "idle in the launch path (runtime)"),
    ("gpu_idle_dependency_share", "idle with work queued behind other work"),
)
_DEVICE_FACTS = (
    ("gpu_busy_share", "GPU busy (utilization over the steps)", display.share),
    ("gpu_idle_at_boundaries_share", "GPU idle at step boundaries", display.share),
    ("communication_overlap_share", "communication hidden behind compute", display.share),
    ("kernels_per_step", "kernels per step", display.number),
    ("launches_per_step", "kernel launches per step", display.number),
    ("median_kernel_time", "median kernel", display.seconds),
    ("mean_kernel_time", "mean kernel", display.seconds),
    ("tensor_core_share", "matrix math on tensor cores", display.share),
    ("half_precision_share", "matrix math in fp16/bf16", display.share),
    ("blocking_copies_per_step", "copies the host waited for, per step", display.number),
)


def device_section(diagnosis: Diagnosis) -> dict[str, Any]:
    """The GPU's side of the step from the device timeline: the diagnosis's facts, formatted."""
    facts = {f.name: f.value for f in diagnosis.facts}
    if not facts.get("device_timeline_available"):
        return {"available": False}
    rows = [{"label": label, "share": display.share(facts.get(name)), "width": float(facts.get(name) or 0.0)}
            for name, label in _DEVICE_ROWS if facts.get(name)]
    numbers = [(label, fmt(facts.get(name))) for name, label, fmt in _DEVICE_FACTS]
    # The shares are of the steady step where the profiler made the profiled steps longer (facts/device.py).
    profiled, steady = facts.get("profiled_step_time"), facts.get("step_time")
    rescaled = isinstance(profiled, (int, float)) and isinstance(steady, (int, float)) and 0 < steady < profiled
    return {"available": True, "base": display.seconds(steady if rescaled else profiled),
            "profiled": display.seconds(profiled) if rescaled else None, "rows": rows,
            "numbers": [(k, v) for k, v in numbers if v != display.UNKNOWN]}
