"""The quick checklist items: each a small function MachineFacts -> Measurement.

An item only reports what it found (a value, or None and the reason); whether
that is good enough is decided in :mod:`.grade`. GPU items on a machine with
no GPU return ``skipped=True`` so that one clear GPU item explains it.
"""

from __future__ import annotations

import os
from typing import Callable, Optional

from ..record import GpuInfo
from .fmt import COULD_NOT_COLLECT, fmt_bytes
from .results import MachineFacts, Measurement, TorchDevice

__all__ = ["QUICK_ITEMS", "ITEM_TITLES", "NO_GPU_REASON"]

NO_GPU_REASON = "needs a GPU (none visible)"

ITEM_TITLES = {
    "python": "Python", "torch": "PyTorch", "torchvision": "torchvision build",
    "cuda_driver": "CUDA build vs driver", "gpu": "GPU", "gpu_memory": "GPU memory",
    "gpu_features": "GPU compute capability", "gpu_clocks": "GPU throttling, power cap",
    "gpu_pcie": "GPU PCIe link", "cudnn": "cuDNN", "cpu_cores": "Usable CPU cores",
    "ram": "RAM", "swap": "Swap", "shm": "Shared memory /dev/shm", "disk_free": "Free disk",
    "disk_type": "Data disk type", "pillow": "Pillow / JPEG library",
    "jpeg_decode": "JPEG decode per core", "disk_read": "Data read throughput",
    "matmul_cpu": "CPU matmul (fp32)", "matmul_gpu": "GPU matmul vs peak",
    "h2d": "Host-to-GPU copy bandwidth", "train_benchmark": "Reference training benchmark",
}


def _m(key: str, value: object = None, **kw: object) -> Measurement:
    return Measurement(key=key, title=ITEM_TITLES[key], value=value, **kw)  # type: ignore[arg-type]


def _no_gpu(key: str) -> Measurement:
    return _m(key, skipped=True, reason=NO_GPU_REASON)


def _torch_missing(f: MachineFacts) -> Optional[str]:
    return None if f.torch.availability.available else (f.torch.availability.reason or "torch not importable")


def _gpus(f: MachineFacts) -> list[GpuInfo]:
    """GPUs from NVML, or from torch when NVML is missing (fields it lacks stay None)."""
    if f.environment.gpus:
        return list(f.environment.gpus)
    return [_gpu_from_torch(d) for d in f.torch.devices]


def _gpu_from_torch(d: TorchDevice) -> GpuInfo:
    return GpuInfo(index=d.index, name=d.name, memory_total=d.memory_total,
                   compute_capability=d.capability, bf16=d.bf16_supported, tf32=d.bf16_supported)


# ----------------------------------------------------------- software

def item_python(f: MachineFacts) -> Measurement:
    v = f.environment.python
    return _m("python", v or None, shown=v or None, reason=None if v else COULD_NOT_COLLECT)


def item_torch(f: MachineFacts) -> Measurement:
    missing = _torch_missing(f)
    if missing:
        return _m("torch", reason=missing)
    t = f.torch
    build = f"CUDA {t.cuda_build} build" if t.cuda_build else "CPU-only build"
    return _m("torch", t.torch, shown=f"{t.torch} ({build})",
              details={"cuda_build": t.cuda_build, "import_seconds": t.import_seconds})


def item_torchvision(f: MachineFacts) -> Measurement:
    t = f.torch
    missing = _torch_missing(f)
    if missing:
        return _m("torchvision", skipped=True, reason=f"torch not importable: {missing}")
    details = {"ops_ok": t.torchvision_ops.available, "error": t.torchvision_ops.reason,
               "requires": t.torchvision_requires_torch, "torch": t.torch}
    if t.torchvision is None:
        return _m("torchvision", reason=t.torchvision_ops.reason or "not installed", details=details)
    shown = f"{t.torchvision}, ops {'work' if t.torchvision_ops.available else 'BROKEN'}"
    return _m("torchvision", t.torchvision, shown=shown, details=details)


def item_cuda_driver(f: MachineFacts) -> Measurement:
    if _torch_missing(f):
        return _m("cuda_driver", skipped=True, reason="torch not importable")
    build = f.torch.cuda_build
    details = {"build": build, "driver_cuda": f.cuda_driver, "driver": f.environment.driver}
    if not f.has_gpu and f.environment.driver is None:
        return _m("cuda_driver", skipped=True, details=details,
                  reason=f"no NVIDIA driver to compare with (torch is a {'CUDA ' + build if build else 'CPU-only'} build)")
    shown = f"torch CUDA {build or 'none (CPU-only)'}; driver {f.environment.driver or '?'} " \
            f"supports CUDA {f.cuda_driver or '?'}"
    return _m("cuda_driver", build or "cpu", shown=shown, details=details)


def item_cudnn(f: MachineFacts) -> Measurement:
    t = f.torch
    if _torch_missing(f):
        return _m("cudnn", skipped=True, reason="torch not importable")
    version = t.cudnn if t.cudnn_available else None
    details = {"version": t.cudnn, "available": t.cudnn_available}
    if not f.has_gpu:
        return _m("cudnn", skipped=True, reason=NO_GPU_REASON + (f"; the build carries cuDNN {version}" if version else ""),
                  details=details)
    return _m("cudnn", version, shown=str(version) if version else None,
              reason=None if version else "torch has no cuDNN", details=details)


# ---------------------------------------------------------------- GPU

def item_gpu(f: MachineFacts) -> Measurement:
    env, t = f.environment, f.torch
    nvml_names = [g.name for g in env.gpus]
    torch_names = [d.name for d in t.devices]
    details = {"nvml_count": len(nvml_names), "torch_count": len(torch_names) if t.cuda_available else 0,
               "nvml": env.nvml.to_dict(), "names": nvml_names or torch_names,
               "cuda_available": t.cuda_available, "cuda_error": t.cuda_error,
               "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
    count = max(details["nvml_count"], details["torch_count"])
    if count == 0:
        reason = env.nvml.reason or "no NVIDIA GPU found"
        return _m("gpu", 0, shown="none visible", reason=reason, details=details)
    names = ", ".join(sorted(set(details["names"])))
    return _m("gpu", count, shown=f"{count} x {names}", details=details)


def item_gpu_memory(f: MachineFacts) -> Measurement:
    gpus = [g for g in _gpus(f) if g.memory_total]
    if not f.has_gpu:
        return _no_gpu("gpu_memory")
    if not gpus:
        return _m("gpu_memory", reason="GPU memory size not reported")
    smallest = min(g.memory_total for g in gpus)  # type: ignore[type-var]
    return _m("gpu_memory", smallest, unit="bytes", shown=fmt_bytes(smallest),
              details={"per_gpu": [g.memory_total for g in gpus]})


def _arch_supported(capability: str, arch_list: tuple[str, ...]) -> Optional[bool]:
    """Does the torch build carry code for this GPU? None when torch did not say."""
    if not arch_list:
        return None
    major, minor = (int(x) for x in capability.split("."))
    for arch in arch_list:
        kind, _, num = arch.partition("_")
        num = num.rstrip("af")  # sm_90a, sm_100f: family-specific variants
        if not num.isdigit():
            continue
        a_major, a_minor = int(num[:-1]), int(num[-1])
        if kind == "sm" and a_major == major and a_minor <= minor:
            return True  # same-major binaries run on later minors
        if kind == "compute" and (a_major, a_minor) <= (major, minor):
            return True  # PTX is compiled for newer GPUs on first use
    return False


def item_gpu_features(f: MachineFacts) -> Measurement:
    if not f.has_gpu:
        return _no_gpu("gpu_features")
    gpus = [g for g in _gpus(f) if g.compute_capability]
    if not gpus:
        return _m("gpu_features", reason="compute capability not reported")
    g = min(gpus, key=lambda x: tuple(int(p) for p in x.compute_capability.split(".")))  # type: ignore[union-attr]
    cc = g.compute_capability or ""
    supported = _arch_supported(cc, f.torch.arch_list)
    flags = [name for name, on in (("bf16", g.bf16), ("TF32", g.tf32)) if on]
    shown = f"{cc} ({', '.join(flags) or 'no bf16, no TF32'})"
    return _m("gpu_features", cc, shown=shown, details={
        "bf16": g.bf16, "tf32": g.tf32, "gpu": g.name, "arch_supported": supported,
        "arch_list": list(f.torch.arch_list)})


def item_gpu_clocks(f: MachineFacts) -> Measurement:
    if not f.has_gpu:
        return _no_gpu("gpu_clocks")
    if not f.environment.gpus:
        return _m("gpu_clocks", reason=f.environment.nvml.reason or "NVML unavailable")
    per_gpu = []
    for g, reasons in zip(f.environment.gpus, list(f.throttle_reasons) + [None] * len(f.environment.gpus)):
        per_gpu.append({"index": g.index, "throttle_reasons": reasons, "power_limit_w": g.power_limit_w,
                        "power_max_w": g.power_max_w})
    caps = [p["power_limit_w"] / p["power_max_w"] for p in per_gpu if p["power_limit_w"] and p["power_max_w"]]
    lowest_cap = min(caps) if caps else None
    if lowest_cap is None and all(p["throttle_reasons"] is None for p in per_gpu):
        return _m("gpu_clocks", reason="NVML reported neither throttle reasons nor power limits",
                  details={"gpus": per_gpu})
    shown = f"power cap {lowest_cap:.0%} of max" if lowest_cap is not None else "power cap unknown"
    return _m("gpu_clocks", lowest_cap, shown=shown, details={"gpus": per_gpu})


def item_gpu_pcie(f: MachineFacts) -> Measurement:
    if not f.has_gpu:
        return _no_gpu("gpu_pcie")
    links = [g for g in f.environment.gpus if g.pcie_gen and g.pcie_width]
    if not links:
        return _m("gpu_pcie", reason=f.environment.nvml.reason or "PCIe link not reported by NVML")
    worst = min(links, key=lambda g: (g.pcie_width or 0) / (g.pcie_width_max or g.pcie_width or 1))
    shown = f"Gen{worst.pcie_gen} x{worst.pcie_width} (max Gen{worst.pcie_gen_max or '?'} x{worst.pcie_width_max or '?'})"
    return _m("gpu_pcie", worst.pcie_width, shown=shown, details={
        "gpus": [{"index": g.index, "gen": g.pcie_gen, "gen_max": g.pcie_gen_max,
                  "width": g.pcie_width, "width_max": g.pcie_width_max} for g in links]})


# --------------------------------------------------------------- host

def item_cpu_cores(f: MachineFacts) -> Measurement:
    e = f.environment
    details = {"logical": e.logical_cores, "physical": e.physical_cores,
               "cgroup_limit": e.cgroup_cpu_limit, "model": e.cpu_model}
    if e.usable_cores is None:
        return _m("cpu_cores", reason=COULD_NOT_COLLECT, details=details)
    limits = []
    if e.logical_cores and e.usable_cores < e.logical_cores:
        limits.append(f"of {e.logical_cores}")
    if e.cgroup_cpu_limit is not None:
        limits.append(f"cgroup quota {e.cgroup_cpu_limit:g}")
    shown = f"{e.usable_cores}" + (f" ({', '.join(limits)})" if limits else "")
    return _m("cpu_cores", e.usable_cores, shown=shown, details=details)


def _size_item(key: str, value: Optional[int], **details: object) -> Measurement:
    if value is None:
        return _m(key, reason=COULD_NOT_COLLECT, details=dict(details))
    return _m(key, value, unit="bytes", shown=fmt_bytes(value) if value else "none", details=dict(details))


def item_ram(f: MachineFacts) -> Measurement:
    return _size_item("ram", f.environment.ram_total)


def item_swap(f: MachineFacts) -> Measurement:
    return _size_item("swap", f.environment.swap_total, ram_total=f.environment.ram_total)


def item_shm(f: MachineFacts) -> Measurement:
    return _size_item("shm", f.environment.shm_total, path="/dev/shm")


def _data_disk(f: MachineFacts):  # type: ignore[no-untyped-def]
    return f.environment.disks[0] if f.environment.disks else None


def item_disk_free(f: MachineFacts) -> Measurement:
    d = _data_disk(f)
    if d is None or d.free_bytes is None:
        return _m("disk_free", reason=COULD_NOT_COLLECT)
    return _m("disk_free", d.free_bytes, unit="bytes", shown=f"{fmt_bytes(d.free_bytes)} at {d.path}",
              details={"path": d.path, "total": d.total_bytes, "data_dir_given": f.data_dir is not None})


def item_disk_type(f: MachineFacts) -> Measurement:
    d = _data_disk(f)
    if d is None or (d.fstype is None and d.rotational is None):
        return _m("disk_type", reason=COULD_NOT_COLLECT)
    device = os.path.basename(d.device or "")
    virtual = device.startswith(("vd", "xvd"))  # virtio/xen: the rotational flag is unreliable
    if d.network:
        kind = "network"
    elif d.fstype in ("tmpfs", "ramfs"):
        kind = "memory"
    elif d.rotational is None:
        kind = "unknown"
    else:
        kind = "rotational" if d.rotational else "ssd"
    shown = f"{kind}{' (flag)' if virtual and kind == 'rotational' else ''}: {d.device or '?'} {d.fstype or '?'} at {d.path}"
    return _m("disk_type", kind, shown=shown, details={
        "path": d.path, "device": d.device, "fstype": d.fstype, "rotational": d.rotational,
        "network": d.network, "virtual_device": virtual, "data_dir_given": f.data_dir is not None})


def item_pillow(f: MachineFacts) -> Measurement:
    e = f.environment
    if e.pillow is None:
        return _m("pillow", reason="Pillow is not installed")
    parts = [e.pillow, "pillow-SIMD" if e.pillow_simd else "not SIMD"]
    parts.append("libjpeg-turbo" if e.libjpeg_turbo else
                 "libjpeg-turbo: Could not collect" if e.libjpeg_turbo is None else "plain libjpeg")
    return _m("pillow", e.pillow, shown=", ".join(parts),
              details={"simd": e.pillow_simd, "libjpeg_turbo": e.libjpeg_turbo})


QUICK_ITEMS: tuple[tuple[str, Callable[[MachineFacts], Measurement]], ...] = (
    ("python", item_python), ("torch", item_torch), ("torchvision", item_torchvision),
    ("cuda_driver", item_cuda_driver), ("gpu", item_gpu), ("gpu_memory", item_gpu_memory),
    ("gpu_features", item_gpu_features), ("gpu_clocks", item_gpu_clocks), ("gpu_pcie", item_gpu_pcie),
    ("cudnn", item_cudnn), ("cpu_cores", item_cpu_cores), ("ram", item_ram), ("swap", item_swap),
    ("shm", item_shm), ("disk_free", item_disk_free), ("disk_type", item_disk_type), ("pillow", item_pillow),
)
