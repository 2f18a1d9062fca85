"""GPU sampler through NVML (the ``pynvml`` module of nvidia-ml-py).

Every NVML call is guarded on its own: a call that raises stores ``None`` for
its value and the sampler goes on. A call that can never work on this GPU
(Not Supported, Function Not Found, an older pynvml without the function) is
not tried again. ``open_sampler`` says plainly why there are no GPU metrics when
NVML cannot start (:func:`trainprobe.machine.open_nvml`, the one opener) or
finds no GPU.

GPU indices are NVML's (PCI bus order); CUDA numbers GPUs fastest-first unless
``CUDA_DEVICE_ORDER=PCI_BUS_ID``, so they may differ from ``cuda:N``. All GPUs
are sampled, not only the ones the run uses: idle ones are evidence too.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import psutil

from ...machine import close_nvml, nvml_unavailable, open_nvml
from ...record import Availability, GpuSeries

__all__ = ["NvmlSampler", "open_sampler", "PCIE_PERIOD_S", "KIB"]

# nvmlDeviceGetPcieThroughput counts bytes over a 20 ms window per call, so
# one GPU costs 2 x 20 ms for rx and tx. It is read for at most one GPU per
# tick and at most every PCIE_PERIOD_S per GPU; other samples store None.
PCIE_PERIOD_S = 0.5
# NVML reports PCIe throughput in "KB/s"; nvidia-smi and nvtop treat it as KiB/s.
KIB = 1024
MAX_GPUS = 64

# NVML error codes (nvml.h); the fake module used in tests carries the same values.
_NOT_SUPPORTED = 3
_FUNCTION_NOT_FOUND = 13
_NEVER_WORKS = {_NOT_SUPPORTED, _FUNCTION_NOT_FOUND}


def _never_works(exc: BaseException) -> bool:
    if isinstance(exc, (AttributeError, TypeError)):  # missing in this pynvml, wrong signature
        return True
    if type(exc).__name__ == "NVMLLibraryMismatchError":
        return True
    return getattr(exc, "value", None) in _NEVER_WORKS


@dataclass
class _Gpu:
    """One GPU: its handle, the calls known not to work, and its columns."""

    index: int
    handle: Any
    dead_calls: set[str] = field(default_factory=set)
    last_pcie: float = float("-inf")
    power_limit_w: Optional[float] = None
    sm_clock_max_mhz: Optional[float] = None
    mem_total: Optional[int] = None
    t: list[float] = field(default_factory=list)
    sm_util: list[Optional[float]] = field(default_factory=list)
    mem_util: list[Optional[float]] = field(default_factory=list)
    power_w: list[Optional[float]] = field(default_factory=list)
    sm_clock_mhz: list[Optional[float]] = field(default_factory=list)
    mem_used: list[Optional[int]] = field(default_factory=list)
    temperature_c: list[Optional[float]] = field(default_factory=list)
    throttle_reasons: list[Optional[int]] = field(default_factory=list)
    pcie_rx_bps: list[Optional[float]] = field(default_factory=list)
    pcie_tx_bps: list[Optional[float]] = field(default_factory=list)
    process_mem_used: list[Optional[int]] = field(default_factory=list)

    def series(self) -> GpuSeries:
        return GpuSeries(
            index=self.index,
            t=tuple(self.t),
            sm_util=tuple(self.sm_util),
            mem_util=tuple(self.mem_util),
            power_w=tuple(self.power_w),
            power_limit_w=self.power_limit_w,
            sm_clock_mhz=tuple(self.sm_clock_mhz),
            sm_clock_max_mhz=self.sm_clock_max_mhz,
            mem_used=tuple(self.mem_used),
            mem_total=self.mem_total,
            temperature_c=tuple(self.temperature_c),
            throttle_reasons=tuple(self.throttle_reasons),
            pcie_rx_bps=tuple(self.pcie_rx_bps),
            pcie_tx_bps=tuple(self.pcie_tx_bps),
            process_mem_used=tuple(self.process_mem_used),
        )


def open_sampler(
    lock: threading.Lock, nvml_module: Any = None
) -> tuple[Optional["NvmlSampler"], Availability]:
    """Start NVML and find the GPUs; (None, reason) when there is nothing to sample."""
    nvml_module, availability = open_nvml(nvml_module)
    if nvml_module is None:
        return None, availability
    try:
        count = int(nvml_module.nvmlDeviceGetCount())
        handles = [nvml_module.nvmlDeviceGetHandleByIndex(i) for i in range(min(count, MAX_GPUS))]
    except Exception as exc:
        close_nvml(nvml_module)
        return None, nvml_unavailable(f"NVML could not list the GPUs ({type(exc).__name__}: {exc})")
    if not handles:
        close_nvml(nvml_module)
        return None, nvml_unavailable("NVML found no NVIDIA GPU")
    return NvmlSampler(nvml_module, handles, lock), availability


class NvmlSampler:
    """Samples every GPU NVML can see; one instance per run, used from one thread."""

    def __init__(self, module: Any, handles: list, lock: threading.Lock) -> None:
        self._nvml = module
        self._lock = lock
        self._closed = False
        self._gpus = [_Gpu(index=i, handle=h) for i, h in enumerate(handles)]
        self._clock_sm = getattr(module, "NVML_CLOCK_SM", 1)
        self._temp_gpu = getattr(module, "NVML_TEMPERATURE_GPU", 0)
        self._pcie_rx = getattr(module, "NVML_PCIE_UTIL_RX_BYTES", 1)
        self._pcie_tx = getattr(module, "NVML_PCIE_UTIL_TX_BYTES", 0)
        for gpu in self._gpus:
            self._read_static(gpu)

    @property
    def gpu_count(self) -> int:
        return len(self._gpus)

    # -- guarded calls -------------------------------------------------------

    def _call(self, gpu: _Gpu, names: tuple[str, ...], *args) -> Any:
        """The first of ``names`` that works on this GPU, called; None if none does."""
        for name in names:
            if name in gpu.dead_calls:
                continue
            try:
                return getattr(self._nvml, name)(gpu.handle, *args)
            except Exception as exc:
                if _never_works(exc):
                    gpu.dead_calls.add(name)
                    continue  # try the older name, if any
                return None  # a transient failure: None for this sample only
        return None

    def _read_static(self, gpu: _Gpu) -> None:
        limit = self._call(gpu, ("nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"))
        gpu.power_limit_w = None if limit is None else limit / 1000.0  # mW
        clock_max = self._call(gpu, ("nvmlDeviceGetMaxClockInfo",), self._clock_sm)
        gpu.sm_clock_max_mhz = None if clock_max is None else float(clock_max)
        memory = self._call(gpu, ("nvmlDeviceGetMemoryInfo",))
        gpu.mem_total = None if memory is None else int(memory.total)

    # -- sampling ------------------------------------------------------------

    def sample(self, t: float, pids: frozenset[int]) -> None:
        """One sample of every GPU; ``pids`` are the run's processes (for its memory)."""
        if self._closed:
            return
        pcie_gpu = self._pcie_due()
        for gpu in self._gpus:
            values = self._read(gpu, pids, read_pcie=gpu is pcie_gpu)
            with self._lock:
                self._store(gpu, round(t, 4), values)

    def _pcie_due(self) -> Optional[_Gpu]:
        now = time.monotonic()
        due = [g for g in self._gpus if now - g.last_pcie >= PCIE_PERIOD_S]
        if not due:
            return None
        gpu = min(due, key=lambda g: g.last_pcie)
        gpu.last_pcie = now
        return gpu

    def _read(self, gpu: _Gpu, pids: frozenset[int], read_pcie: bool) -> tuple:
        util = self._call(gpu, ("nvmlDeviceGetUtilizationRates",))
        power = self._call(gpu, ("nvmlDeviceGetPowerUsage",))
        clock = self._call(gpu, ("nvmlDeviceGetClockInfo",), self._clock_sm)
        memory = self._call(gpu, ("nvmlDeviceGetMemoryInfo",))
        temp = self._call(gpu, ("nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature"), self._temp_gpu)
        reasons = self._call(
            gpu, ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
        )
        rx = tx = None
        if read_pcie:
            rx = self._call(gpu, ("nvmlDeviceGetPcieThroughput",), self._pcie_rx)
            tx = self._call(gpu, ("nvmlDeviceGetPcieThroughput",), self._pcie_tx)
        return (
            _num(getattr(util, "gpu", None)),
            _num(getattr(util, "memory", None)),
            None if power is None else power / 1000.0,  # mW -> W
            _num(clock),
            None if memory is None else int(memory.used),
            _num(temp),
            None if reasons is None else int(reasons),
            None if rx is None else float(rx * KIB),  # KB/s -> bytes/s
            None if tx is None else float(tx * KIB),
            self._process_memory(gpu, pids),
        )

    def _process_memory(self, gpu: _Gpu, pids: frozenset[int]) -> Optional[int]:
        procs = self._call(
            gpu, ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetComputeRunningProcesses_v2")
        )
        if procs is None:
            return None
        ours = [getattr(p, "usedGpuMemory", None) for p in procs if getattr(p, "pid", None) in pids]
        known = [m for m in ours if m is not None]
        if known:
            return int(sum(known))
        if ours:  # our processes are listed but NVML cannot say how much (WDDM, MIG)
            return None
        if procs and not pids:
            return None
        if any(not _pid_visible(getattr(p, "pid", -1)) for p in procs):
            # pids from another pid namespace (a container): ours cannot be told apart
            return None
        return 0

    @staticmethod
    def _store(gpu: _Gpu, t: float, values: tuple) -> None:
        gpu.t.append(t)
        (
            sm, mem_util, power, clock, mem_used, temp, reasons, rx, tx, proc_mem
        ) = values
        gpu.sm_util.append(sm)
        gpu.mem_util.append(mem_util)
        gpu.power_w.append(power)
        gpu.sm_clock_mhz.append(clock)
        gpu.mem_used.append(mem_used)
        gpu.temperature_c.append(temp)
        gpu.throttle_reasons.append(reasons)
        gpu.pcie_rx_bps.append(rx)
        gpu.pcie_tx_bps.append(tx)
        gpu.process_mem_used.append(proc_mem)

    def result(self) -> tuple[GpuSeries, ...]:
        """A frozen copy of every GPU's series; the caller holds the lock."""
        return tuple(g.series() for g in self._gpus)

    def close(self) -> None:
        """nvmlShutdown, once; from the thread that sampled (NVML calls are not to race it)."""
        if not self._closed:
            self._closed = True
            close_nvml(self._nvml)


def _num(value: Any) -> Optional[float]:
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _pid_visible(pid: int) -> bool:
    try:
        return psutil.pid_exists(pid)
    except Exception:
        return False
