"""Facts about this machine, one small ``get_*`` function per fact.

Modelled on ``torch.utils.collect_env``: every getter returns ``None`` (or an
:class:`~trainprobe.record.Availability` saying why) instead of raising, and
:func:`collect_environment` gathers them into the run record's
:class:`~trainprobe.record.Environment`. Printing is someone else's job.

The probe's parent process calls :func:`collect_environment` without torch
(``include_torch=False``): it must stay fast and must not import torch. The
NVML getters take an optional ``nvml`` module so tests can pass a fake.
"""

from __future__ import annotations

import getpass
import hashlib
import importlib
import importlib.metadata
import os
import platform
import socket
import sys
from typing import Any, Callable, Optional, Sequence, TypeVar

from .record import Availability, DiskInfo, Environment, GpuInfo

__all__ = [
    "collect_environment",
    "get_python_version",
    "get_platform",
    "get_hostname_hash",
    "get_user_name",
    "get_cpu_model",
    "get_logical_cores",
    "get_physical_cores",
    "get_cgroup_cpu_limit",
    "get_usable_cores",
    "get_ram_total",
    "get_ram_available",
    "get_swap_total",
    "get_shm_total",
    "get_pillow_version",
    "get_pillow_simd",
    "get_libjpeg_turbo",
    "get_package_version",
    "get_disk_info",
    "load_nvml",
    "get_nvml_gpus",
    "get_cuda_driver_version",
    "get_gpu_throttle_reasons",
    "get_torch_facts",
    "THROTTLE_REASONS",
    "NETWORK_FSTYPES",
]

T = TypeVar("T")

NVML_MISSING_REASON = (
    "GPU metrics unavailable: NVIDIA driver library not found "
    "(no NVIDIA GPU or driver on this machine)"
)

# File systems whose reads cross a network (or a user-space layer that usually does).
NETWORK_FSTYPES = frozenset({
    "nfs", "nfs4", "cifs", "smbfs", "smb3", "9p", "fuse.sshfs", "ceph", "glusterfs",
    "fuse.glusterfs", "lustre", "gpfs", "beegfs", "fuse.s3fs", "fuse.gcsfuse",
    "fuse.rclone", "fuse.juicefs", "afs", "davfs", "fuse.davfs2", "virtiofs",
})

# NVML clock-throttle ("clocks event") reason bits.
THROTTLE_REASONS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}


def _guard(fn: Callable[[], T]) -> Optional[T]:
    """Run a getter's body; any failure means "could not collect"."""
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a fact we cannot read is None, never a crash
        return None


# --------------------------------------------------------------------- host

def get_python_version() -> str:
    return platform.python_version()


def get_platform() -> str:
    return _guard(platform.platform) or sys.platform


def get_hostname_hash() -> Optional[str]:
    """First 12 hex digits of the hostname's sha256: identifies, never names."""
    return _guard(lambda: hashlib.sha256(socket.gethostname().encode()).hexdigest()[:12])


def get_user_name() -> Optional[str]:
    return _guard(getpass.getuser)


def _cpu_model_from_proc() -> Optional[str]:
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    return None


def get_cpu_model() -> Optional[str]:
    return _guard(_cpu_model_from_proc) or _guard(platform.processor) or None


def get_logical_cores() -> Optional[int]:
    return _guard(os.cpu_count)


def get_physical_cores() -> Optional[int]:
    def read() -> Optional[int]:
        import psutil
        return psutil.cpu_count(logical=False)
    return _guard(read)


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read().strip()


def _cgroup_v2_limit(root: str) -> Optional[float]:
    quota, period = _read_text(os.path.join(root, "cpu.max")).split()[:2]
    if quota == "max":
        return None
    return int(quota) / int(period)


def _cgroup_v1_limit(root: str) -> Optional[float]:
    quota = int(_read_text(os.path.join(root, "cpu.cfs_quota_us")))
    period = int(_read_text(os.path.join(root, "cpu.cfs_period_us")))
    if quota <= 0 or period <= 0:
        return None  # -1: no quota
    return quota / period


def get_cgroup_cpu_limit(root: str = "/sys/fs/cgroup") -> Optional[float]:
    """CPU cores the cgroup quota allows (v2 ``cpu.max`` or v1 ``cpu.cfs_quota_us``); None if unlimited."""
    for reader, sub in ((_cgroup_v2_limit, ""), (_cgroup_v1_limit, "cpu"),
                        (_cgroup_v1_limit, "cpu,cpuacct"), (_cgroup_v1_limit, "")):
        path = os.path.join(root, sub) if sub else root
        try:
            return reader(path)
        except (OSError, ValueError, IndexError):
            continue
    return None


def get_usable_cores(cgroup_limit: Optional[float] = None) -> Optional[int]:
    """Cores this process may really use: CPU affinity, capped by a cgroup quota."""
    def read() -> int:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        limit = cgroup_limit if cgroup_limit is not None else get_cgroup_cpu_limit()
        if limit is not None:
            cores = min(cores, max(1, int(limit)))  # 1.5 cores of quota: one full core
        return cores
    return _guard(read)


def get_ram_total() -> Optional[int]:
    def read() -> int:
        import psutil
        return psutil.virtual_memory().total
    return _guard(read)


def get_ram_available() -> Optional[int]:
    def read() -> int:
        import psutil
        return psutil.virtual_memory().available
    return _guard(read)


def get_swap_total() -> Optional[int]:
    def read() -> int:
        import psutil
        return psutil.swap_memory().total
    return _guard(read)


def get_shm_total(path: str = "/dev/shm") -> Optional[int]:
    """Size of /dev/shm, where DataLoader workers pass batches to the main process."""
    def read() -> int:
        import psutil
        return psutil.disk_usage(path).total
    return _guard(read)


# ------------------------------------------------------------- image stack

def get_package_version(name: str) -> Optional[str]:
    """An installed distribution's version, read from its metadata (no import)."""
    return _guard(lambda: importlib.metadata.version(name))


def get_pillow_version() -> Optional[str]:
    def read() -> str:
        import PIL
        return PIL.__version__
    return _guard(read)


def get_pillow_simd() -> Optional[bool]:
    """pillow-SIMD versions carry a ``.postN`` suffix (e.g. ``9.5.0.post1``)."""
    version = get_pillow_version()
    if version is None:
        return None
    return ".post" in version or get_package_version("pillow-simd") is not None


def get_libjpeg_turbo() -> Optional[bool]:
    def read() -> Optional[bool]:
        from PIL import features
        return bool(features.check_feature("libjpeg_turbo"))
    return _guard(read)


# ------------------------------------------------------------------- disks

def _mount_for(path: str) -> Optional[Any]:
    import psutil
    real = os.path.realpath(path)
    best = None
    for part in psutil.disk_partitions(all=True):
        mp = part.mountpoint
        if real == mp or real.startswith(mp.rstrip("/") + "/") or mp == "/":
            if best is None or len(mp) > len(best.mountpoint):
                best = part
    return best


def _rotational(path: str) -> Optional[bool]:
    dev = os.stat(path).st_dev
    base = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"
    for candidate in (base, os.path.join(base, "..")):  # a partition: ask its parent disk
        flag = os.path.join(candidate, "queue", "rotational")
        if os.path.exists(flag):
            return _read_text(flag) == "1"
    return None


def get_disk_info(path: str) -> DiskInfo:
    """The storage under ``path``; fields it cannot read stay None."""
    part = _guard(lambda: _mount_for(path))
    fstype = part.fstype if part is not None else None

    def usage() -> Any:
        import psutil
        return psutil.disk_usage(path)
    du = _guard(usage)
    network = None
    if fstype is not None:
        network = fstype in NETWORK_FSTYPES or fstype.startswith(("nfs", "fuse.sshfs", "cifs"))
    return DiskInfo(
        path=os.path.abspath(path),
        device=part.device if part is not None else None,
        fstype=fstype,
        rotational=_guard(lambda: _rotational(path)),
        free_bytes=du.free if du is not None else None,
        total_bytes=du.total if du is not None else None,
        network=network,
    )


# -------------------------------------------------------------------- NVML

def load_nvml() -> tuple[Optional[Any], Availability]:
    """Import and initialise pynvml; (module, Availability) with a plain reason on failure."""
    try:
        nvml = importlib.import_module("pynvml")
    except Exception as exc:  # noqa: BLE001
        return None, Availability(False, f"GPU metrics unavailable: pynvml not importable ({exc})")
    try:
        nvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001
        if type(exc).__name__ == "NVMLError_LibraryNotFound":
            return None, Availability(False, NVML_MISSING_REASON)
        return None, Availability(False, f"GPU metrics unavailable: NVML failed to start ({exc})")
    return nvml, Availability(True, None)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _gpu_info(nvml: Any, index: int) -> GpuInfo:
    handle = nvml.nvmlDeviceGetHandleByIndex(index)
    g = lambda fn, *a: _guard(lambda: getattr(nvml, fn)(handle, *a))  # noqa: E731
    mem = g("nvmlDeviceGetMemoryInfo")
    cc = g("nvmlDeviceGetCudaComputeCapability")
    limit = g("nvmlDeviceGetEnforcedPowerLimit")
    constraints = g("nvmlDeviceGetPowerManagementLimitConstraints")
    cc_text = f"{cc[0]}.{cc[1]}" if cc else None
    major = cc[0] if cc else None
    return GpuInfo(
        index=index,
        name=_text(g("nvmlDeviceGetName") or ""),
        uuid=_guard(lambda: _text(nvml.nvmlDeviceGetUUID(handle))),
        memory_total=int(mem.total) if mem is not None else None,
        compute_capability=cc_text,
        power_limit_w=limit / 1000.0 if limit else None,
        power_max_w=constraints[1] / 1000.0 if constraints else None,
        pcie_gen=g("nvmlDeviceGetCurrPcieLinkGeneration"),
        pcie_gen_max=g("nvmlDeviceGetMaxPcieLinkGeneration"),
        pcie_width=g("nvmlDeviceGetCurrPcieLinkWidth"),
        pcie_width_max=g("nvmlDeviceGetMaxPcieLinkWidth"),
        bf16=major >= 8 if major is not None else None,  # Ampere and newer
        tf32=major >= 8 if major is not None else None,
    )


def get_nvml_gpus(nvml: Any) -> tuple[tuple[GpuInfo, ...], Optional[str]]:
    """(GPUs, driver version) from an initialised NVML module."""
    count = _guard(nvml.nvmlDeviceGetCount) or 0
    gpus = []
    for index in range(count):
        info = _guard(lambda: _gpu_info(nvml, index))
        if info is not None:
            gpus.append(info)
    driver = _guard(lambda: _text(nvml.nvmlSystemGetDriverVersion()))
    return tuple(gpus), driver


def get_cuda_driver_version(nvml: Any) -> Optional[str]:
    """Newest CUDA version the installed driver supports, e.g. "12.4"."""
    def read() -> str:
        v = int(nvml.nvmlSystemGetCudaDriverVersion())
        return f"{v // 1000}.{(v % 1000) // 10}"
    return _guard(read)


def get_gpu_throttle_reasons(nvml: Any, index: int) -> Optional[int]:
    """NVML clock-throttle bitmask (see THROTTLE_REASONS) for one GPU."""
    def read() -> int:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
        fn = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            nvml.nvmlDeviceGetCurrentClocksThrottleReasons
        return int(fn(handle))
    return _guard(read)


# ------------------------------------------------------------------- torch

def get_torch_facts() -> dict[str, Any]:
    """Torch fields of the Environment (imports torch). Missing facts are None."""
    facts: dict[str, Any] = {}
    try:
        import torch
    except Exception:  # noqa: BLE001
        return facts
    facts["torch"] = _guard(lambda: torch.__version__)
    facts["torch_cuda_build"] = _guard(lambda: torch.version.cuda)
    facts["cudnn"] = _guard(torch.backends.cudnn.version)
    facts["cuda_available"] = bool(_guard(torch.cuda.is_available))
    facts["gpu_count"] = (_guard(torch.cuda.device_count) or 0) if facts["cuda_available"] else 0
    facts["torch_threads"] = _guard(torch.get_num_threads)
    facts["torch_interop_threads"] = _guard(torch.get_num_interop_threads)
    return facts


# ---------------------------------------------------------------- together

def collect_environment(data_paths: Sequence[str] = (), include_torch: bool = False) -> Environment:
    """Gather the run record's Environment. Fast, never raises; torch only if asked."""
    try:
        return _collect(data_paths, include_torch)
    except Exception as exc:  # noqa: BLE001 - last resort: a record without environment facts
        return Environment(python=get_python_version(), platform=sys.platform,
                           nvml=Availability(False, f"environment not collected: {exc}"))


def _collect(data_paths: Sequence[str], include_torch: bool) -> Environment:
    cgroup_limit = get_cgroup_cpu_limit()
    nvml, availability = load_nvml()
    gpus: tuple[GpuInfo, ...] = ()
    driver = None
    if nvml is not None:
        gpus, driver = get_nvml_gpus(nvml)
        _guard(nvml.nvmlShutdown)
    torch_facts = get_torch_facts() if include_torch else {}
    return Environment(
        python=get_python_version(),
        platform=get_platform(),
        hostname_hash=get_hostname_hash(),
        torchvision=get_package_version("torchvision"),
        gpus=gpus,
        driver=driver,
        nvml=availability,
        cpu_model=get_cpu_model(),
        logical_cores=get_logical_cores(),
        physical_cores=get_physical_cores(),
        usable_cores=get_usable_cores(cgroup_limit),
        cgroup_cpu_limit=cgroup_limit,
        ram_total=get_ram_total(),
        swap_total=get_swap_total(),
        shm_total=get_shm_total(),
        pillow=get_pillow_version(),
        pillow_simd=get_pillow_simd(),
        libjpeg_turbo=get_libjpeg_turbo(),
        disks=tuple(get_disk_info(p) for p in data_paths),
        **torch_facts,
    )
