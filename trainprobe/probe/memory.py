"""Memory the run may use, and the CUDA allocator's figures per step.

* ``DeviceMemoryReader``: at the end of every steady step on a GPU, the caching allocator's
  peak allocated and reserved bytes over the step (its peak counters are reset for the next
  step) and what stays allocated, from one read of the allocator's nested statistics. No device
  sync. torch.cuda.max_memory_allocated() and its siblings each flatten every statistic in
  Python: three of them cost 0.4 ms a step on an H200's host (most of the probe's 0.9 ms a step
  there, benchmarks/workloads/inprocess_ab.py --device cuda, 2026-11-26).
* ``memory_limit``: the bytes the run may use and how many were free when it started: the
  GPU's memory on a GPU run; on a CPU the tightest of the cgroup's limit, the address-space
  rlimits (address space, ``ulimit -v``; data segment, ``ulimit -d``) and the machine's RAM.
* ``process_memory``: this process's memory as each kind of limit counts it (resident for RAM and a
  cgroup, the data segment for ``ulimit -d``, the address space for ``ulimit -v``): what the process
  needs besides its tensors is this less the tensors alive (facts/memory.py).
"""

from __future__ import annotations

import os
from typing import Any, Optional

__all__ = ["DeviceMemoryReader", "memory_limit", "cgroup_memory_limit", "process_memory", "LIMIT_MEASURES"]


ADDRESS_SPACE_LIMIT = "address-space limit (ulimit -v)"
DATA_LIMIT = "data-segment limit (ulimit -d)"
# Which of process_memory's figures each kind of limit counts (the rest: resident memory).
LIMIT_MEASURES = {ADDRESS_SPACE_LIMIT: "address_space", DATA_LIMIT: "data"}


class DeviceMemoryReader:
    def __init__(self) -> None:
        self.failed = False

    def read(self, step_index: int) -> Optional[list]:
        """[step, peak allocated, peak reserved, allocated now] for the step just ended, or None."""
        if self.failed:
            return None
        try:
            import torch

            if not torch.cuda.is_initialized():
                return None
            allocated, reserved = _allocator_totals(torch)
            reading = [int(step_index), int(allocated["peak"]), int(reserved["peak"]), int(allocated["current"])]
            torch.cuda.reset_peak_memory_stats()
            return reading
        except Exception:  # pylint: disable=broad-except  # an allocator without statistics: stop asking
            self.failed = True
            return None


def _allocator_totals(torch: Any) -> tuple[dict, dict]:
    """The caching allocator's allocated and reserved bytes over all pools ("current", "peak"): the nested
    statistics torch.cuda.memory_stats() flattens, read once (the public calls as a fallback)."""
    nested = getattr(torch._C, "_cuda_memoryStats", None)  # pylint: disable=protected-access
    if nested is not None:
        stats = nested(torch.cuda.current_device())
        return stats["allocated_bytes"]["all"], stats["reserved_bytes"]["all"]
    return ({"peak": torch.cuda.max_memory_allocated(), "current": torch.cuda.memory_allocated()},
            {"peak": torch.cuda.max_memory_reserved()})


def _read_int(path: str) -> Optional[int]:
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read().strip()
    except OSError:
        return None
    if not text or text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return value if 0 < value < (1 << 60) else None  # v1 writes a huge number for "no limit"


def cgroup_memory_limit() -> Optional[int]:
    """This process's cgroup memory limit (v2 memory.max, else v1 memory.limit_in_bytes), or None."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # v2
            value = _read_int(os.path.join("/sys/fs/cgroup", path.lstrip("/"), "memory.max"))
            if value:
                return value
        elif "memory" in controllers.split(","):
            value = _read_int(os.path.join("/sys/fs/cgroup/memory", path.lstrip("/"), "memory.limit_in_bytes"))
            if value:
                return value
    return None


def memory_limit(torch: Any, cuda: bool) -> dict[str, Any]:
    """{"limit", "source"}: the bytes the run may use and what sets it. (What was free when the run
    started comes from the samplers' first readings: see probe/assemble.py.)"""
    if cuda:
        try:
            device = torch.cuda.current_device()
            _free, total = torch.cuda.mem_get_info(device)
            fraction = _memory_fraction(torch, device)
            if fraction is not None and fraction < 1.0:  # torch.cuda.set_per_process_memory_fraction
                return {"limit": int(total * fraction), "source": f"GPU memory × the process's fraction {fraction:g}"}
            return {"limit": int(total), "source": "GPU memory"}
        except Exception:  # pylint: disable=broad-except
            return {"limit": None, "source": None}
    candidates: list[tuple[int, str]] = []
    try:
        import psutil

        candidates.append((int(psutil.virtual_memory().total), "RAM"))
    except Exception:  # pylint: disable=broad-except
        pass
    cgroup = cgroup_memory_limit()
    if cgroup:
        candidates.append((cgroup, "cgroup memory limit"))
    try:
        import resource

        for which, source in ((resource.RLIMIT_AS, ADDRESS_SPACE_LIMIT), (resource.RLIMIT_DATA, DATA_LIMIT)):
            soft, _hard = resource.getrlimit(which)
            if soft not in (resource.RLIM_INFINITY, -1) and soft > 0:
                candidates.append((int(soft), source))
    except (ImportError, OSError, ValueError, AttributeError):
        pass
    if not candidates:
        return {"limit": None, "source": None}
    limit, source = min(candidates)
    return {"limit": limit, "source": source}


def _memory_fraction(torch: Any, device: int) -> Optional[float]:
    getter = getattr(torch.cuda, "get_per_process_memory_fraction", None)
    if getter is None:
        return None
    try:
        return float(getter(device))
    except Exception:  # pylint: disable=broad-except  # an allocator without the setting
        return None


_STATUS_KEYS = {"VmRSS": "resident", "VmData": "data", "VmSize": "address_space"}


def process_memory() -> dict[str, int]:
    """{"resident", "data", "address_space"}: this process's memory in bytes (Linux's /proc/self/status;
    elsewhere psutil's resident and virtual sizes), {} when unreadable."""
    out: dict[str, int] = {}
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                name = _STATUS_KEYS.get(key)
                if name and rest.strip().endswith("kB"):
                    out[name] = int(rest.split()[0]) * 1024
        if out:
            return out
    except (OSError, ValueError):
        pass
    try:
        import psutil

        info = psutil.Process().memory_info()
        return {"resident": int(info.rss), "address_space": int(info.vms)}
    except Exception:  # pylint: disable=broad-except
        return {}
