"""A small stand-in for the ``pynvml`` module (nvidia-ml-py), for testing GPU paths without a GPU.

Only the functions trainprobe calls are here, with pynvml's names, argument
order and units (mW, MHz, bytes, KB/s). Each GPU is a :class:`FakeGpu`; a
name in ``FakeGpu.unsupported`` raises NVML's Not Supported error, a name in
``FakeGpu.failing`` raises a transient Unknown error. ``calls`` counts calls
per (function, gpu index).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Optional

NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_UNKNOWN = 999

_NAMES = {
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_FUNCTION_NOT_FOUND: "Function Not Found",
    NVML_ERROR_UNKNOWN: "Unknown Error",
}


class NVMLError(Exception):
    """Like pynvml's: carries the NVML error code in ``value``."""

    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return _NAMES.get(self.value, f"NVML Error with code {self.value}")


class NVMLError_NotSupported(NVMLError):
    def __init__(self, value: int = NVML_ERROR_NOT_SUPPORTED) -> None:
        super().__init__(value)


class NVMLError_LibraryNotFound(NVMLError):
    def __init__(self, value: int = NVML_ERROR_LIBRARY_NOT_FOUND) -> None:
        super().__init__(value)


@dataclass
class FakeGpu:
    sm_util: int = 75  # percent
    mem_util: int = 30
    power_mw: int = 123_456
    power_limit_mw: int = 300_000
    sm_clock_mhz: int = 1410
    sm_clock_max_mhz: int = 1980
    mem_used: int = 4 << 30
    mem_total: int = 80 << 30
    temperature_c: int = 61
    event_reasons: int = 0x4
    throttle_reasons: int = 0x4
    pcie_rx_kbs: int = 1000  # KB/s, as NVML reports it
    pcie_tx_kbs: int = 500
    processes: list[tuple[int, Optional[int]]] = field(default_factory=list)  # (pid, bytes)
    unsupported: set[str] = field(default_factory=set)
    failing: set[str] = field(default_factory=set)


class FakePynvml:
    """Pass an instance as ``nvml_module``."""

    NVMLError = NVMLError
    NVML_CLOCK_SM = 1
    NVML_TEMPERATURE_GPU = 0
    NVML_PCIE_UTIL_TX_BYTES = 0
    NVML_PCIE_UTIL_RX_BYTES = 1

    def __init__(self, gpus: list[FakeGpu], init_error: Optional[NVMLError] = None) -> None:
        self.gpus = gpus
        self.init_error = init_error
        self.calls: Counter[tuple[str, int]] = Counter()
        self.initialized = 0
        self.shutdowns = 0

    # -- library ---------------------------------------------------------------

    def nvmlInit(self) -> None:
        if self.init_error is not None:
            raise self.init_error
        self.initialized += 1

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        return index  # the handle is the index

    # -- per device ------------------------------------------------------------

    def _gpu(self, name: str, handle: int) -> FakeGpu:
        self.calls[(name, handle)] += 1
        gpu = self.gpus[handle]
        if name in gpu.unsupported:
            raise NVMLError_NotSupported()
        if name in gpu.failing:
            raise NVMLError(NVML_ERROR_UNKNOWN)
        return gpu

    def nvmlDeviceGetUtilizationRates(self, handle):
        gpu = self._gpu("nvmlDeviceGetUtilizationRates", handle)
        return SimpleNamespace(gpu=gpu.sm_util, memory=gpu.mem_util)

    def nvmlDeviceGetPowerUsage(self, handle) -> int:
        return self._gpu("nvmlDeviceGetPowerUsage", handle).power_mw

    def nvmlDeviceGetEnforcedPowerLimit(self, handle) -> int:
        return self._gpu("nvmlDeviceGetEnforcedPowerLimit", handle).power_limit_mw

    def nvmlDeviceGetClockInfo(self, handle, clock_type: int) -> int:
        assert clock_type == self.NVML_CLOCK_SM
        return self._gpu("nvmlDeviceGetClockInfo", handle).sm_clock_mhz

    def nvmlDeviceGetMaxClockInfo(self, handle, clock_type: int) -> int:
        assert clock_type == self.NVML_CLOCK_SM
        return self._gpu("nvmlDeviceGetMaxClockInfo", handle).sm_clock_max_mhz

    def nvmlDeviceGetMemoryInfo(self, handle):
        gpu = self._gpu("nvmlDeviceGetMemoryInfo", handle)
        return SimpleNamespace(total=gpu.mem_total, used=gpu.mem_used, free=gpu.mem_total - gpu.mem_used)

    def nvmlDeviceGetTemperature(self, handle, sensor: int) -> int:
        assert sensor == self.NVML_TEMPERATURE_GPU
        return self._gpu("nvmlDeviceGetTemperature", handle).temperature_c

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle) -> int:
        return self._gpu("nvmlDeviceGetCurrentClocksEventReasons", handle).event_reasons

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle) -> int:
        return self._gpu("nvmlDeviceGetCurrentClocksThrottleReasons", handle).throttle_reasons

    def nvmlDeviceGetPcieThroughput(self, handle, counter: int) -> int:
        gpu = self._gpu("nvmlDeviceGetPcieThroughput", handle)
        return gpu.pcie_rx_kbs if counter == self.NVML_PCIE_UTIL_RX_BYTES else gpu.pcie_tx_kbs

    def nvmlDeviceGetComputeRunningProcesses(self, handle):
        gpu = self._gpu("nvmlDeviceGetComputeRunningProcesses", handle)
        return [SimpleNamespace(pid=pid, usedGpuMemory=used) for pid, used in gpu.processes]
