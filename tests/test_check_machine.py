"""trainprobe.machine: the getters and collect_environment, on this machine and with fake NVML;
the one torch collector (the probe's and check's), the one NVML opener, the one throttle table."""

from __future__ import annotations

import dataclasses
import hashlib
import socket
import subprocess
import sys
import threading
import time
import types

import pytest

from fakes.fake_pynvml import (NVML_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_LIBRARY_NOT_FOUND, FakePynvml,
                               NVMLError)
from test_check_fakes import GIB, FakeGpu, NVMLError_LibraryNotFound, fake_nvml, install_fake_nvml
from trainprobe import machine
from trainprobe.record import Availability, Environment

NO_LIBRARY = ("GPU metrics unavailable: the NVIDIA driver library libnvidia-ml.so.1 could not be loaded "
              "(no NVIDIA driver on this machine, or a container started without GPU access)")


def _has_nvidia_gpu() -> bool:
    nvml, availability = machine.open_nvml()
    if nvml is not None:
        machine.close_nvml(nvml)
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


@pytest.mark.slow
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
    assert env.nvml.reason == NO_LIBRARY


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


# ---------------------------------------------------------------- the one NVML opener

@pytest.mark.parametrize("module, reason", [
    (FakePynvml([], init_error=NVMLError(NVML_ERROR_LIBRARY_NOT_FOUND)), NO_LIBRARY),  # the sampler's fake
    (fake_nvml([], init_error=NVMLError_LibraryNotFound("not found")), NO_LIBRARY),  # check's fake
    (FakePynvml([], init_error=NVMLError(NVML_ERROR_DRIVER_NOT_LOADED)),
     "GPU metrics unavailable: the NVIDIA driver is not loaded"),
    (FakePynvml([], init_error=NVMLError(999)), "GPU metrics unavailable: NVML did not start (NVMLError: Unknown Error)"),
], ids=["sampler-fake-no-library", "check-fake-no-library", "driver-not-loaded", "other"])
def test_one_nvml_opener_one_wording_for_the_probe_and_check(module, reason, monkeypatch):
    assert machine.open_nvml(module) == (None, Availability(False, reason))
    # check's collector opens NVML the same way, so it says the same
    install_fake_nvml(monkeypatch, module)
    assert machine.collect_environment().nvml.reason == reason
    # and so does the probe's GPU sampler
    from trainprobe.probe.samplers.nvml import open_sampler
    sampler, availability = open_sampler(threading.Lock(), module)
    assert sampler is None and availability.reason == reason


def test_nvml_missing_package_is_said_plainly(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ModuleNotFoundError
    nvml, availability = machine.open_nvml()
    assert nvml is None
    assert availability.reason == "GPU metrics unavailable: the nvidia-ml-py package (module pynvml) is not installed"


# ---------------------------------------------------------------- the one throttle table

def test_throttle_table_names_every_bit_once_and_groups_them():
    bits = [r.bit for r in machine.THROTTLE_REASONS]
    assert len(set(bits)) == len(bits) and all(b & (b - 1) == 0 for b in bits)  # distinct single bits
    assert len({r.name for r in machine.THROTTLE_REASONS}) == len(bits)
    by_name = {r.name: r.bit for r in machine.THROTTLE_REASONS}
    assert machine.THROTTLE_GROUPS == {
        "thermal": by_name["sw_thermal_slowdown"] | by_name["hw_thermal_slowdown"],
        "power": by_name["sw_power_cap"] | by_name["hw_power_brake_slowdown"],
        "slowdown": by_name["hw_slowdown"] | by_name["sw_thermal_slowdown"] | by_name["hw_thermal_slowdown"]
        | by_name["hw_power_brake_slowdown"],
    }
    # NVML's values (nvml.h: nvmlClocksEventReason*)
    assert (by_name["sw_power_cap"], by_name["hw_slowdown"], by_name["sw_thermal_slowdown"],
            by_name["hw_thermal_slowdown"], by_name["hw_power_brake_slowdown"]) == (0x4, 0x8, 0x20, 0x40, 0x80)
    idle_and_hot = by_name["gpu_idle"] | by_name["sw_thermal_slowdown"]
    assert [r.label for r in machine.throttle_reasons_in(idle_and_hot, machine.THROTTLE_SLOWDOWN)] == [
        "software thermal slowdown"]
    assert [r.name for r in machine.throttle_reasons_in(idle_and_hot)] == ["gpu_idle", "sw_thermal_slowdown"]


def test_the_run_facts_and_the_check_grader_read_the_same_table():
    from trainprobe.facts import gpu as gpu_facts
    assert (gpu_facts._THERMAL, gpu_facts._POWER) == (machine.THROTTLE_THERMAL, machine.THROTTLE_POWER)


# ---------------------------------------------------------------- the one torch collector

def _shared_fields(facts: machine.TorchFacts) -> dict:
    """The facts both children read the same way (check's adds device properties and torchvision)."""
    return {k: v for k, v in facts.to_dict().items() if k not in ("devices", "import_seconds", "torchvision",
                                                                   "torchvision_ops", "torchvision_requires_torch")}


def test_probe_and_check_read_torch_facts_with_the_same_function():
    """The probe's environment event and check's TorchFacts: one collector, one set of field names."""
    import torch
    from trainprobe.probe import instrument
    from trainprobe.readiness import bench
    from trainprobe.readiness.results import TorchFacts

    assert instrument.get_torch_facts is machine.get_torch_facts is bench.get_torch_facts
    assert TorchFacts is machine.TorchFacts
    event = instrument._torch_env()  # what the probe emits before the script runs
    assert set(event) == {f.name for f in dataclasses.fields(machine.TorchFacts)}
    facts = machine.TorchFacts.from_dict(event)
    assert facts.torch == torch.__version__ and facts.threads == torch.get_num_threads()
    assert facts.cudnn == torch.backends.cudnn.version()
    assert facts.devices == ()  # the probe never initializes CUDA before the script does


@pytest.mark.slow
def test_probe_event_and_check_child_agree_on_every_shared_fact():
    from trainprobe.probe import instrument
    from trainprobe.readiness.collect import collect_torch_facts

    probe = machine.TorchFacts.from_dict(instrument._torch_env())
    check = collect_torch_facts()  # check's real child process
    assert check.torchvision and check.import_seconds
    assert _shared_fields(probe) == _shared_fields(check)


def test_torch_facts_fill_the_environment_the_same_for_probe_and_check():
    from trainprobe.probe.assemble import _environment
    facts = machine.TorchFacts(availability=Availability(True), torch="2.5.1", cuda_build="12.4",
                               cudnn=90100, cuda_available=True, device_count=2, threads=8, interop_threads=4)
    base = Environment(python="3.11.7")
    env = _environment(base, facts.to_dict())
    assert env == dataclasses.replace(base, **machine.torch_environment(facts))
    assert (env.torch, env.torch_cuda_build, env.cudnn, env.cuda_available, env.gpu_count, env.torch_threads,
            env.torch_interop_threads) == ("2.5.1", "12.4", 90100, True, 2, 8, 4)
    assert _environment(base, {}) == base  # no event yet (a partial record)


def test_each_torch_fact_is_guarded():
    """A torch whose every call fails (an aborting backend, a half-installed build) gives Nones, not a crash."""
    def boom(*args):
        raise RuntimeError("broken")
    broken = types.SimpleNamespace(
        __version__="2.9.0", version=types.SimpleNamespace(cuda=None),
        backends=types.SimpleNamespace(cudnn=types.SimpleNamespace(version=boom, is_available=boom)),
        cuda=types.SimpleNamespace(is_available=boom, device_count=boom, get_arch_list=boom),
        get_num_threads=boom, get_num_interop_threads=boom)
    facts = machine.get_torch_facts(broken)
    assert facts.availability.available and facts.torch == "2.9.0"
    assert (facts.cudnn, facts.cudnn_available, facts.threads, facts.interop_threads) == (None, None, None, None)
    assert facts.cuda_available is False and facts.device_count == 0 and facts.devices == ()


def test_no_torch_is_a_reason_not_a_crash(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    facts = machine.get_torch_facts()
    assert facts.availability.available is False and facts.availability.reason.startswith("import torch failed")
    assert machine.torch_environment(facts)["torch"] is None
