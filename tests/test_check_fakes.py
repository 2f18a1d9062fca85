"""Hardware fakes for the check's GPU paths (this machine has no GPU).

``fake_nvml`` builds a stand-in for the ``pynvml`` module; ``fake_torch_facts``
what a child process would find on a GPU machine. ``build_fake_result`` makes
the ``tests/data/check/fake_*.json`` files: clearly fakes, the GPU paths were
*not validated on a GPU*. ``python tests/test_check_fakes.py`` rewrites them
and, after a grading change, re-grades the real recordings ``here_*.json``
(their measurements stay as recorded).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, Optional

DATA = Path(__file__).parent / "data" / "check"


class NVMLError(Exception):
    pass


class NVMLError_LibraryNotFound(NVMLError):  # noqa: N801 - pynvml's own name
    pass


class FakeGpu:
    def __init__(self, name: str, memory: int, cc: tuple[int, int], *, power=(300.0, 300.0),
                 pcie=(4, 4, 16, 16), throttle: int = 0x1) -> None:
        self.name, self.memory, self.cc = name, memory, cc
        self.power, self.pcie, self.throttle = power, pcie, throttle


def fake_nvml(gpus: list[FakeGpu], driver: str = "550.54.15", cuda: int = 12040,
              broken: tuple[str, ...] = (), init_error: Optional[Exception] = None) -> types.ModuleType:
    """A module with the pynvml functions trainprobe calls. Names in ``broken`` raise NVMLError."""
    m = types.ModuleType("pynvml")
    m.NVMLError = NVMLError
    m.NVMLError_LibraryNotFound = NVMLError_LibraryNotFound
    calls: list[str] = []
    m.calls = calls

    def fn(name: str, impl: Any) -> None:
        def wrapper(*args: Any) -> Any:
            calls.append(name)
            if name in broken:
                raise NVMLError(f"{name} not supported")
            return impl(*args)
        setattr(m, name, wrapper)

    def init() -> None:
        if init_error is not None:
            raise init_error
    fn("nvmlInit", init)
    fn("nvmlShutdown", lambda: None)
    fn("nvmlDeviceGetCount", lambda: len(gpus))
    fn("nvmlDeviceGetHandleByIndex", lambda i: gpus[i])
    fn("nvmlDeviceGetName", lambda h: h.name)
    fn("nvmlDeviceGetUUID", lambda h: f"GPU-fake-{gpus.index(h)}")
    fn("nvmlDeviceGetMemoryInfo", lambda h: types.SimpleNamespace(total=h.memory, used=0, free=h.memory))
    fn("nvmlDeviceGetCudaComputeCapability", lambda h: h.cc)
    fn("nvmlDeviceGetEnforcedPowerLimit", lambda h: int(h.power[0] * 1000))
    fn("nvmlDeviceGetPowerManagementLimitConstraints", lambda h: (100_000, int(h.power[1] * 1000)))
    fn("nvmlDeviceGetCurrPcieLinkGeneration", lambda h: h.pcie[0])
    fn("nvmlDeviceGetMaxPcieLinkGeneration", lambda h: h.pcie[1])
    fn("nvmlDeviceGetCurrPcieLinkWidth", lambda h: h.pcie[2])
    fn("nvmlDeviceGetMaxPcieLinkWidth", lambda h: h.pcie[3])
    fn("nvmlDeviceGetCurrentClocksThrottleReasons", lambda h: h.throttle)
    fn("nvmlSystemGetDriverVersion", lambda: driver)
    fn("nvmlSystemGetCudaDriverVersion", lambda: cuda)
    return m


def install_fake_nvml(monkeypatch: Any, module: types.ModuleType) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", module)


def fake_torch_facts(gpus: list[FakeGpu], cuda_build: str = "12.4", ops_error: Optional[str] = None,
                     arch_list: tuple[str, ...] = ("sm_70", "sm_75", "sm_80", "sm_86", "sm_90")):
    from trainprobe.readiness.results import TorchDevice, TorchFacts
    from trainprobe.record import Availability
    return TorchFacts(
        availability=Availability(True, None), torch=f"2.5.1+cu{cuda_build.replace('.', '')}",
        cuda_build=cuda_build, cudnn=90100, cudnn_available=True, cuda_available=bool(gpus),
        devices=tuple(TorchDevice(index=i, name=g.name, memory_total=g.memory,
                                  capability=f"{g.cc[0]}.{g.cc[1]}", bf16_supported=g.cc[0] >= 8)
                      for i, g in enumerate(gpus)),
        arch_list=arch_list, torchvision="0.20.1",
        torchvision_ops=Availability(ops_error is None, ops_error),
        torchvision_requires_torch="torch (==2.5.1)", threads=8, import_seconds=1.2)


def _bench(key: str, value: float, unit: str, details: dict[str, Any]):
    from trainprobe.display import in_unit
    from trainprobe.readiness.items import item
    return item(key).measured(value, unit=unit, shown=in_unit(value, unit), details=details, seconds=1.0)


GIB = 1024 ** 3

SCENARIOS: dict[str, dict[str, Any]] = {
    # A lab machine that is ready: A100, matching builds, good link.
    "fake_gpu_a100_ready": dict(
        name="fake-a100-student",
        gpus=[FakeGpu("NVIDIA A100-SXM4-80GB", 80 * GIB, (8, 0), power=(400.0, 400.0))],
        cuda=12040, build="12.4", ops_error=None,
        benches=[("train_benchmark", 2400.0, "images/s", {"model": "resnet18", "input": "3x64x64",
                  "batch_size": 128, "num_workers": 4, "device": "cuda", "step_ms": 53.3}),
                 ("matmul_gpu", 250.0, "TFLOP/s", {"device": "NVIDIA A100-SXM4-80GB",
                  "tflops": {"fp32": 18.9, "tf32": 120.0, "fp16": 250.0, "bf16": 250.0}}),
                 ("h2d", 20.5, "GB/s", {"gbps": {"pageable": 9.1, "pinned": 20.5}})]),
    # A student laptop-style setup gone wrong: old driver, mismatched torchvision, throttling, x8 link.
    "fake_gpu_t4_broken": dict(
        name="fake-t4-student",
        gpus=[FakeGpu("Tesla T4", 15 * GIB, (7, 5), power=(50.0, 70.0), pcie=(3, 3, 8, 16),
                      throttle=0x20 | 0x4)],
        cuda=11080, build="12.4",
        ops_error="RuntimeError: operator torchvision::nms does not exist",
        benches=[("train_benchmark", 420.0, "images/s", {"model": "resnet18", "input": "3x64x64",
                  "batch_size": 128, "num_workers": 3, "device": "cuda", "step_ms": 304.8})]),
}


def build_fake_result(scenario: str, monkeypatch: Any = None):
    """A CheckResult from the fake hardware of ``scenario`` (host facts are this machine's)."""
    import dataclasses

    from trainprobe.readiness.collect import build_result, collect_facts
    from trainprobe.readiness.expect import Expectations
    from trainprobe.readiness.items import measure_quick
    s = SCENARIOS[scenario]
    module = fake_nvml(s["gpus"], cuda=s["cuda"])
    saved = sys.modules.get("pynvml")
    sys.modules["pynvml"] = module
    try:
        facts = collect_facts(None, fake_torch_facts(s["gpus"], s["build"], s["ops_error"]))
    finally:
        if saved is not None:
            sys.modules["pynvml"] = saved
        else:
            sys.modules.pop("pynvml", None)
    if scenario == "fake_gpu_t4_broken":  # a container started with Docker's 64 MB /dev/shm
        facts = dataclasses.replace(facts, environment=dataclasses.replace(
            facts.environment, shm_total=64 * 1024 * 1024))
    measurements = measure_quick(facts)
    measurements += [_bench(*b) for b in s["benches"]]
    return build_result(facts, measurements, Expectations(), "full", s["name"], 42.0,
                        created_at="2026-11-21T12:00:00+00:00")


def regrade_recorded() -> None:
    """After a grading change: re-grade the real recordings (measurements untouched)."""
    import dataclasses

    from trainprobe.readiness import CheckResult, Expectations, grade_all, verdict_of
    for path in sorted(DATA.glob("here_*.json")):
        r = CheckResult.load(path)
        grades = grade_all(r.measurements, Expectations(require=r.expectations), r.facts, r.mode)
        verdict, code = verdict_of(grades)
        dataclasses.replace(r, grades=grades, verdict=verdict, exit_code=code).save(path, indent=2)
        print("re-graded", path)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    DATA.mkdir(parents=True, exist_ok=True)
    for name in SCENARIOS:
        build_fake_result(name).save(DATA / f"{name}.json", indent=2)
        print("wrote", DATA / f"{name}.json")
    regrade_recorded()
