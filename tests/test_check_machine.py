"""trainprobe.machine: the getters and collect_environment, on this machine and with fake NVML."""

from __future__ import annotations

import hashlib
import socket
import subprocess
import sys
import time

import pytest

from test_check_fakes import GIB, FakeGpu, NVMLError_LibraryNotFound, fake_nvml, install_fake_nvml
from trainprobe import machine
from trainprobe.record import Environment


def _has_nvidia_gpu() -> bool:
    nvml, availability = machine.load_nvml()
    return availability.available


def test_collect_environment_is_fast_and_does_not_import_torch():
    code = ("import sys, time; t = time.perf_counter();"
            "from trainprobe.machine import collect_environment;"
            "env = collect_environment(['.']);"
            "print(time.perf_counter() - t, 'torch' in sys.modules, 'torchvision' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    # 0.5 s is the budget; allow for this shared, noisy host
    assert float(out[0]) < 2.0
    assert out[1:] == ["False", "False"]


def test_collect_environment_here():
    t0 = time.perf_counter()
    env = machine.collect_environment(["."])
    assert time.perf_counter() - t0 < 2.0
    assert isinstance(env, Environment)
    assert env.python.count(".") == 2
    assert len(env.hostname_hash) == 12 and int(env.hostname_hash, 16) >= 0
    host = socket.gethostname()
    assert env.hostname_hash == hashlib.sha256(host.encode()).hexdigest()[:12]
    assert host not in [v for v in env.to_dict().values() if isinstance(v, str)]
    assert env.usable_cores and env.usable_cores <= env.logical_cores
    assert env.ram_total > 0 and env.shm_total and env.shm_total > 0
    assert env.torch is None  # not asked for
    assert env.torchvision  # read from metadata, without importing it
    assert len(env.disks) == 1 and env.disks[0].free_bytes > 0 and env.disks[0].fstype
    if not _has_nvidia_gpu():
        assert env.nvml.available is False
        assert env.nvml.reason.startswith("GPU metrics unavailable")
        assert env.gpus == ()


def test_collect_environment_with_torch_fills_torch_fields():
    env = machine.collect_environment(include_torch=True)
    import torch
    assert env.torch == torch.__version__
    assert env.cuda_available == torch.cuda.is_available()
    assert env.torch_threads == torch.get_num_threads()


def test_nvml_library_missing_gives_the_plain_reason(monkeypatch):
    install_fake_nvml(monkeypatch, fake_nvml([], init_error=NVMLError_LibraryNotFound("not found")))
    env = machine.collect_environment()
    assert env.nvml.available is False
    assert env.nvml.reason == ("GPU metrics unavailable: NVIDIA driver library not found "
                               "(no NVIDIA GPU or driver on this machine)")


def test_fake_gpu_fills_gpu_info(monkeypatch):
    gpus = [FakeGpu("NVIDIA A100-SXM4-80GB", 80 * GIB, (8, 0), power=(250.0, 400.0), pcie=(3, 4, 8, 16)),
            FakeGpu("Tesla T4", 15 * GIB, (7, 5))]
    install_fake_nvml(monkeypatch, fake_nvml(gpus))
    env = machine.collect_environment()
    assert env.nvml.available and env.driver == "550.54.15"
    a100, t4 = env.gpus
    assert a100.name == "NVIDIA A100-SXM4-80GB" and a100.memory_total == 80 * GIB
    assert a100.compute_capability == "8.0" and a100.bf16 and a100.tf32
    assert (a100.power_limit_w, a100.power_max_w) == (250.0, 400.0)
    assert (a100.pcie_gen, a100.pcie_gen_max, a100.pcie_width, a100.pcie_width_max) == (3, 4, 8, 16)
    assert t4.compute_capability == "7.5" and t4.bf16 is False
    module = sys.modules["pynvml"]
    assert machine.get_cuda_driver_version(module) == "12.4"
    assert machine.get_gpu_throttle_reasons(module, 0) == 0x1


def test_each_nvml_call_is_guarded(monkeypatch):
    broken = ("nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetMaxPcieLinkWidth",
              "nvmlDeviceGetEnforcedPowerLimit", "nvmlSystemGetDriverVersion")
    install_fake_nvml(monkeypatch, fake_nvml([FakeGpu("GPU X", 8 * GIB, (8, 6))], broken=broken))
    env = machine.collect_environment()
    (g,) = env.gpus
    assert g.name == "GPU X" and g.memory_total == 8 * GIB
    assert g.compute_capability is None and g.bf16 is None
    assert g.pcie_width_max is None and g.power_limit_w is None
    assert env.driver is None


def _write(path, text):
    path.write_text(text)
    return path


def test_cgroup_v2_and_v1_limits(tmp_path):
    v2 = tmp_path / "v2"
    v2.mkdir()
    _write(v2 / "cpu.max", "150000 100000\n")
    assert machine.get_cgroup_cpu_limit(str(v2)) == 1.5
    _write(v2 / "cpu.max", "max 100000\n")
    assert machine.get_cgroup_cpu_limit(str(v2)) is None
    v1 = tmp_path / "v1" / "cpu"
    v1.mkdir(parents=True)
    _write(v1 / "cpu.cfs_quota_us", "300000\n")
    _write(v1 / "cpu.cfs_period_us", "100000\n")
    assert machine.get_cgroup_cpu_limit(str(tmp_path / "v1")) == 3.0
    _write(v1 / "cpu.cfs_quota_us", "-1\n")
    assert machine.get_cgroup_cpu_limit(str(tmp_path / "v1")) is None
    assert machine.get_cgroup_cpu_limit(str(tmp_path / "nothing")) is None


def test_usable_cores_respect_a_cgroup_quota():
    affinity = len(__import__("os").sched_getaffinity(0))
    assert machine.get_usable_cores(0.5) == 1
    assert machine.get_usable_cores(1000.0) == affinity


def test_disk_info_of_tmp(tmp_path):
    d = machine.get_disk_info(str(tmp_path))
    assert d.path == str(tmp_path) and d.total_bytes >= d.free_bytes > 0
    assert d.network is False or d.fstype in machine.NETWORK_FSTYPES


def test_pillow_facts_here():
    pytest.importorskip("PIL")
    assert machine.get_pillow_version()
    assert machine.get_pillow_simd() in (True, False)
    assert machine.get_libjpeg_turbo() in (True, False)
