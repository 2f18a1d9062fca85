"""Facts about this machine, one small ``get_*`` function per fact.

Modelled on ``torch.utils.collect_env``: every getter returns ``None`` (or an
:class:`~trainprobe.record.Availability` saying why) instead of raising, and
:func:`collect_environment` gathers them into the run record's
:class:`~trainprobe.record.Environment`. Printing is someone else's job.

The probe's parent process calls :func:`collect_environment` without torch
(``include_torch=False``): it must stay fast and must not import torch. Torch's
own facts come from :func:`get_torch_facts`, called where torch is imported:
in the probe's child before the script runs, and in ``check``'s child process.
Both get the same :class:`TorchFacts`, and :func:`torch_environment` turns them
into the Environment's fields. NVML is opened in one way for everyone
(:func:`open_nvml`, which takes a fake module in tests), and its clock-throttle
bits are named once (:data:`THROTTLE_REASONS`, :data:`THROTTLE_GROUPS`).
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
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Optional, Sequence, TypeVar

from .jsonio import JsonMixin
from .record import Availability, DiskInfo, Environment, GpuInfo

__all__ = [
    "collect_environment",
    "get_python_version", "get_platform", "get_hostname_hash", "get_user_name", "get_cpu_model",
    "get_logical_cores", "get_physical_cores", "get_cgroup_cpu_limit", "get_usable_cores",
    "get_ram_total", "get_ram_available", "get_swap_total", "get_shm_total",
    "get_pillow_version", "get_pillow_simd", "get_libjpeg_turbo", "get_package_version",
    "get_disk_info",
    "NVML_UNAVAILABLE", "nvml_unavailable", "open_nvml", "close_nvml", "get_nvml_gpus",
    "get_cuda_driver_version", "get_gpu_throttle_reasons",
    "ThrottleReason", "THROTTLE_REASONS", "THROTTLE_GROUPS", "THROTTLE_THERMAL",
    "THROTTLE_POWER", "THROTTLE_SLOWDOWN", "throttle_reasons_in",
    "TorchDevice", "TorchFacts", "get_torch_facts", "get_torch_devices", "torch_environment",
    "NETWORK_FSTYPES",
]

T = TypeVar("T")

# File systems whose reads cross a network (or a user-space layer that usually does).
NETWORK_FSTYPES = frozenset({
    "nfs", "nfs4", "cifs", "smbfs", "smb3", "9p", "fuse.sshfs", "ceph", "glusterfs",
    "fuse.glusterfs", "lustre", "gpfs", "beegfs", "fuse.s3fs", "fuse.gcsfuse",
    "fuse.rclone", "fuse.juicefs", "afs", "davfs", "fuse.davfs2", "virtiofs",
})


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


# ------------------------------------------------------------ C allocator

_ALLOCATORS = ("jemalloc", "tcmalloc", "mimalloc")


def get_libc() -> Optional[str]:
    """The C library Python links, as "glibc 2.36"; "" where it cannot tell (musl, macOS)."""
    def read() -> str:
        name, version = platform.libc_ver()
        return f"{name} {version}".strip() if name else ""
    return _guard(read)


def get_malloc_preload(environ: Optional[dict] = None) -> str:
    """The allocator library LD_PRELOAD puts in glibc malloc's place, or ""."""
    for entry in (environ if environ is not None else os.environ).get("LD_PRELOAD", "").replace(":", " ").split():
        base = os.path.basename(entry)
        if any(name in base for name in _ALLOCATORS):
            return base
    return ""


def get_malloc_env(environ: Optional[dict] = None) -> tuple[str, ...]:
    """The glibc malloc settings the environment sets: MALLOC_*_ variables and malloc tunables."""
    env = environ if environ is not None else os.environ
    found = [f"{k}={v}" for k, v in sorted(env.items()) if k.startswith("MALLOC_") and k.endswith("_")]
    tunables = [t for t in env.get("GLIBC_TUNABLES", "").split(":") if t.startswith("glibc.malloc.")]
    return tuple(found + tunables)


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

NVML_UNAVAILABLE = "GPU metrics unavailable: "

# NVML error codes (nvml.h); pynvml's exceptions carry theirs in ``value``.
_NVML_NO_PERMISSION = 4
_NVML_DRIVER_NOT_LOADED = 9
_NVML_LIBRARY_NOT_FOUND = 12


def nvml_unavailable(reason: str) -> Availability:
    """Why there are no GPU metrics, in the one wording: "GPU metrics unavailable: <reason>"."""
    return Availability(False, NVML_UNAVAILABLE + reason)


def _nvml_init_failure(exc: BaseException) -> str:
    code = getattr(exc, "value", None)
    if code == _NVML_LIBRARY_NOT_FOUND or type(exc).__name__ == "NVMLError_LibraryNotFound":
        return ("the NVIDIA driver library libnvidia-ml.so.1 could not be loaded (no NVIDIA driver on "
                "this machine, or a container started without GPU access)")
    if code == _NVML_DRIVER_NOT_LOADED:
        return "the NVIDIA driver is not loaded"
    if code == _NVML_NO_PERMISSION:
        return "no permission to query the NVIDIA driver"
    return f"NVML did not start ({type(exc).__name__}: {exc})"


def open_nvml(module: Any = None) -> tuple[Optional[Any], Availability]:
    """Start NVML: (the pynvml module, available) or (None, why not); close it with :func:`close_nvml`.

    ``module`` replaces ``pynvml`` (tests pass a fake one).
    """
    if module is None:
        try:
            module = importlib.import_module("pynvml")
        except ModuleNotFoundError:
            return None, nvml_unavailable("the nvidia-ml-py package (module pynvml) is not installed")
        except Exception as exc:  # noqa: BLE001
            return None, nvml_unavailable(f"the pynvml module failed to import ({type(exc).__name__}: {exc})")
    try:
        module.nvmlInit()
    except Exception as exc:  # noqa: BLE001
        return None, nvml_unavailable(_nvml_init_failure(exc))
    return module, Availability(True, None)


def close_nvml(module: Any) -> None:
    """nvmlShutdown, whatever it says."""
    _guard(module.nvmlShutdown)


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


class ThrottleReason(NamedTuple):
    """One NVML clock-throttle ("clocks event") reason bit."""

    bit: int
    name: str  # NVML's name, snake_case
    label: str  # what a person reads


THROTTLE_REASONS = (
    ThrottleReason(0x1, "gpu_idle", "GPU idle"),
    ThrottleReason(0x2, "applications_clocks_setting", "application clocks setting"),
    ThrottleReason(0x4, "sw_power_cap", "software power cap"),
    ThrottleReason(0x8, "hw_slowdown", "hardware slowdown"),
    ThrottleReason(0x10, "sync_boost", "sync boost"),
    ThrottleReason(0x20, "sw_thermal_slowdown", "software thermal slowdown"),
    ThrottleReason(0x40, "hw_thermal_slowdown", "hardware thermal slowdown"),
    ThrottleReason(0x80, "hw_power_brake_slowdown", "power brake"),
    ThrottleReason(0x100, "display_clock_setting", "display clock setting"),
)
_BIT = {r.name: r.bit for r in THROTTLE_REASONS}

THROTTLE_THERMAL = _BIT["sw_thermal_slowdown"] | _BIT["hw_thermal_slowdown"]
THROTTLE_POWER = _BIT["sw_power_cap"] | _BIT["hw_power_brake_slowdown"]
# The GPU slowing itself down (not idle, not clocks someone set).
THROTTLE_SLOWDOWN = _BIT["hw_slowdown"] | THROTTLE_THERMAL | _BIT["hw_power_brake_slowdown"]
THROTTLE_GROUPS = {"thermal": THROTTLE_THERMAL, "power": THROTTLE_POWER, "slowdown": THROTTLE_SLOWDOWN}


def throttle_reasons_in(mask: int, group: int = ~0) -> tuple[ThrottleReason, ...]:
    """The reasons set in ``mask`` that belong to ``group`` (a THROTTLE_* mask; all by default)."""
    return tuple(r for r in THROTTLE_REASONS if mask & group & r.bit)


# ------------------------------------------------------------------- torch

@dataclass(frozen=True)
class TorchDevice(JsonMixin):
    """One CUDA device as torch sees it."""

    index: int = 0
    name: str = ""
    memory_total: Optional[int] = None
    capability: Optional[str] = None  # "8.6"
    bf16_supported: Optional[bool] = None


@dataclass(frozen=True)
class TorchFacts(JsonMixin):
    """What a Python process found in torch (and, for ``check``, torchvision).

    The probe's child and ``check``'s child both fill it with
    :func:`get_torch_facts`; the torchvision fields are ``check``'s alone.
    """

    availability: Availability = field(default_factory=Availability)  # torch importable?
    torch: Optional[str] = None
    cuda_build: Optional[str] = None  # torch.version.cuda; None: CPU-only build
    cudnn: Optional[int] = None
    cudnn_available: Optional[bool] = None
    cuda_available: bool = False
    cuda_error: Optional[str] = None  # why CUDA is not available, when torch says
    device_count: Optional[int] = None  # CUDA devices torch sees (without initializing CUDA)
    devices: tuple[TorchDevice, ...] = ()  # their properties, when asked for
    arch_list: tuple[str, ...] = ()  # torch.cuda.get_arch_list(): sm_XY the build carries
    threads: Optional[int] = None
    interop_threads: Optional[int] = None
    torchvision: Optional[str] = None
    torchvision_ops: Availability = field(default_factory=Availability)  # nms ran?
    torchvision_requires_torch: Optional[str] = None  # from torchvision's metadata
    import_seconds: Optional[float] = None


def _cuda_available(torch: Any) -> tuple[bool, Optional[str]]:
    """torch.cuda.is_available(), and the first line of the warning torch gives when it is not."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = bool(_guard(torch.cuda.is_available))
    if available:
        return True, None
    messages = [str(w.message).splitlines()[0] for w in caught if str(w.message).strip()]
    return False, messages[0] if messages else None


def get_torch_devices(torch: Any) -> tuple[TorchDevice, ...]:
    """Each CUDA device's properties. Initializes CUDA: never before the user's script runs."""
    def device(i: int) -> TorchDevice:
        p = torch.cuda.get_device_properties(i)
        return TorchDevice(index=i, name=p.name, memory_total=int(p.total_memory),
                           capability=f"{p.major}.{p.minor}", bf16_supported=p.major >= 8)
    return tuple(_guard(lambda: tuple(device(i) for i in range(torch.cuda.device_count()))) or ())


def get_torch_facts(torch: Any = None, devices: bool = True) -> TorchFacts:
    """Torch's facts, each read on its own (None when it fails). Imports torch unless given.

    ``devices=False`` leaves out the device properties, which would initialize CUDA.
    """
    if torch is None:
        try:
            torch = importlib.import_module("torch")
        except Exception as exc:  # noqa: BLE001
            return TorchFacts(availability=Availability(False, f"import torch failed: {exc}"))
    cuda, cuda_error = _cuda_available(torch)
    return TorchFacts(
        availability=Availability(True, None),
        torch=_guard(lambda: str(torch.__version__)),
        cuda_build=_guard(lambda: torch.version.cuda),
        cudnn=_guard(torch.backends.cudnn.version),
        cudnn_available=_guard(lambda: bool(torch.backends.cudnn.is_available())),
        cuda_available=cuda,
        cuda_error=cuda_error,
        device_count=(_guard(torch.cuda.device_count) or 0) if cuda else 0,
        devices=get_torch_devices(torch) if cuda and devices else (),
        arch_list=tuple(_guard(torch.cuda.get_arch_list) or ()) if cuda else (),
        threads=_guard(torch.get_num_threads),
        interop_threads=_guard(torch.get_num_interop_threads),
    )


def torch_environment(facts: TorchFacts) -> dict[str, Any]:
    """The Environment's torch fields from TorchFacts (``dataclasses.replace(env, **these)``)."""
    count = facts.device_count if facts.device_count is not None else len(facts.devices)
    return {"torch": facts.torch, "torch_cuda_build": facts.cuda_build, "cudnn": facts.cudnn,
            "cuda_available": facts.cuda_available, "gpu_count": count if facts.cuda_available else 0,
            "torch_threads": facts.threads, "torch_interop_threads": facts.interop_threads}


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
    nvml, availability = open_nvml()
    gpus: tuple[GpuInfo, ...] = ()
    driver = None
    if nvml is not None:
        gpus, driver = get_nvml_gpus(nvml)
        close_nvml(nvml)
    torch_facts = torch_environment(get_torch_facts()) if include_torch else {}
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
        libc=get_libc(),
        malloc_preload=get_malloc_preload(),
        malloc_env=get_malloc_env(),
        **torch_facts,
    )
