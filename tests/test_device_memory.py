"""The allocator's figures read at the end of each steady GPU step (probe/memory.py DeviceMemoryReader).

The reader takes the allocator's nested statistics once a step instead of three public calls that each
flatten them all in Python (0.4 ms a step on an H200's host). Faked here is only the hardware: the CUDA
allocator's statistics, in the nested form torch's own torch.cuda.memory_stats() flattens, so the
reading must agree with what torch's public calls say of the same statistics.
"""

from __future__ import annotations

import torch

from trainprobe.probe.memory import DeviceMemoryReader

GIB = 1 << 30


def _allocator(monkeypatch, allocated_peak, reserved_peak, allocated_now):
    pool = {"current": 0, "peak": 0, "allocated": 0, "freed": 0}
    stats = {
        "allocated_bytes": {"all": {"current": allocated_now, "peak": allocated_peak, "allocated": 9 * GIB,
                                    "freed": 8 * GIB}, "small_pool": dict(pool), "large_pool": dict(pool)},
        "reserved_bytes": {"all": {"current": reserved_peak, "peak": reserved_peak, "allocated": reserved_peak,
                                   "freed": 0}, "small_pool": dict(pool), "large_pool": dict(pool)},
        "num_alloc_retries": 0,
    }
    resets = []
    for module in (torch.cuda, torch.cuda.memory):  # torch.cuda.memory holds its own reference
        monkeypatch.setattr(module, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch._C, "_cuda_memoryStats", lambda device: stats, raising=False)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda *a, **k: resets.append(1))
    return resets


def test_a_steps_reading_is_what_torchs_public_calls_say(monkeypatch):
    resets = _allocator(monkeypatch, allocated_peak=3 * GIB, reserved_peak=4 * GIB, allocated_now=1 * GIB)
    reading = DeviceMemoryReader().read(7)
    public = [7, torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved(), torch.cuda.memory_allocated()]
    assert reading == public == [7, 3 * GIB, 4 * GIB, 1 * GIB]
    assert resets == [1]  # the peaks start again for the next step


def test_no_reading_before_cuda_starts(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    assert DeviceMemoryReader().read(3) is None


def test_an_allocator_without_statistics_is_asked_once(monkeypatch):
    calls = []

    def broken(device):
        calls.append(device)
        raise RuntimeError("no statistics with this allocator")

    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch._C, "_cuda_memoryStats", broken, raising=False)
    reader = DeviceMemoryReader()
    assert reader.read(1) is None and reader.read(2) is None and calls == [0]


def test_a_cpu_run_on_a_gpu_machine_never_starts_cuda(monkeypatch):
    """Reading the run's settings on a machine with a GPU the script never used: torch.cuda's sync debug
    mode starts CUDA when asked (its _lazy_init), which gave a CPU run a CUDA context mid-run and, with it,
    the allocator's per-step reads. Asked only where the run started CUDA itself."""
    from trainprobe.probe.settings import Registry, read_settings

    started = []

    def starts_cuda():
        started.append(True)  # (an exception would be swallowed: settings are read leniently)
        return 0

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    monkeypatch.setattr(torch.cuda, "get_sync_debug_mode", starts_cuda)
    settings = read_settings(Registry(), "optimizer", False)
    assert settings.cuda_available and not settings.cuda_used and settings.sync_debug_mode is None
    assert not started
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)  # a run that started CUDA: asked
    monkeypatch.setattr(torch.cuda, "get_sync_debug_mode", lambda: 1)
    assert read_settings(Registry(), "optimizer", False).sync_debug_mode == 1
