"""Memory the run may use, and the CUDA allocator's figures per step.

* ``DeviceMemoryReader``: at the end of every steady step on a GPU, the caching allocator's
  peak allocated and reserved bytes over the step (its peak counters are reset for the next
  step) and what stays allocated. Reading them costs a few µs and no device sync.
* ``memory_limit``: the bytes the run may use and how many were free when it started: the
  GPU's memory on a GPU run; on a CPU the tightest of the cgroup's limit, the address-space
  rlimit and the machine's RAM.
"""

from __future__ import annotations

import os
from typing import Any, Optional

__all__ = ["DeviceMemoryReader", "memory_limit", "cgroup_memory_limit"]


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
            reading = [int(step_index), int(torch.cuda.max_memory_allocated()),
                       int(torch.cuda.max_memory_reserved()), int(torch.cuda.memory_allocated())]
            torch.cuda.reset_peak_memory_stats()
            return reading
        except Exception:  # pylint: disable=broad-except  # an allocator without statistics: stop asking
            self.failed = True
            return None


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
            _free, total = torch.cuda.mem_get_info(torch.cuda.current_device())
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

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft not in (resource.RLIM_INFINITY, -1) and soft > 0:
            candidates.append((int(soft), "address-space limit (ulimit -v)"))
    except (ImportError, OSError, ValueError):
        pass
    if not candidates:
        return {"limit": None, "source": None}
    limit, source = min(candidates)
    return {"limit": limit, "source": source}
