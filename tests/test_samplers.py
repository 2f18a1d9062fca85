"""The parent-side samplers: real process trees, a fake pynvml for the GPU path."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from statistics import mean

import psutil
import pytest

from trainprobe.probe.samplers import (
    FULL_RATE_S,
    MAX_STORED_PERIOD_S,
    start_sampling,
    storage_stride,
)
from trainprobe.probe.samplers.host import classify_role
from trainprobe.probe.samplers.nvml import KIB
from trainprobe.record import Samples

sys.path.insert(0, os.path.dirname(__file__))
from fakes.fake_pynvml import (  # noqa: E402
    NVML_ERROR_LIBRARY_NOT_FOUND,
    FakeGpu,
    FakePynvml,
    NVMLError,
)

# A script that starts, under "spawn" (so a resource_tracker appears too), two
# busy workers and one idle one, says their pids once they all run, and waits
# for its stdin to close.
TREE_SCRIPT = textwrap.dedent(
    """
    import multiprocessing as mp, sys, time

    def busy(ready, deadline):
        ready.put(1)
        while time.time() < deadline:
            pass

    def idle(ready, deadline):
        ready.put(1)
        while time.time() < deadline:
            time.sleep(0.05)

    if __name__ == "__main__":
        ctx = mp.get_context("spawn")
        ready = ctx.Queue()
        deadline = time.time() + 30  # a safety net: the test ends them much sooner
        procs = [ctx.Process(target=f, args=(ready, deadline), daemon=True) for f in (busy, busy, idle)]
        for p in procs:
            p.start()
        for _ in procs:
            ready.get(timeout=20)
        print(procs[0].pid, procs[1].pid, procs[2].pid, flush=True)
        sys.stdin.read()
    """
)


def _end_tree(proc: subprocess.Popen) -> None:
    try:
        descendants = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    if proc.stdin:
        proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for child in descendants:  # only the processes this test started
        try:
            child.kill()
        except psutil.Error:
            pass


@pytest.fixture
def process_tree(tmp_path):
    script = tmp_path / "tree.py"
    script.write_text(TREE_SCRIPT)
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline()
        busy1, busy2, idle = (int(x) for x in line.split())
        yield proc, {busy1, busy2}, idle
    finally:
        _end_tree(proc)


def _increasing(values) -> bool:
    return all(a < b for a, b in zip(values, values[1:]))


@pytest.mark.slow  # seconds of real sampling: kept out of the quick loop, run in CI
def test_process_tree_roles_cpu_and_host_series(process_tree):
    proc, busy, idle = process_tree
    t0 = time.monotonic()
    sampling = start_sampling(proc.pid, t0, interval=0.1)
    time.sleep(0.7)
    partial = sampling.snapshot()
    time.sleep(0.8)
    samples = sampling.stop()

    assert isinstance(partial, Samples)
    assert samples.host_availability.available
    by_pid = {s.pid: s for s in samples.processes}
    assert by_pid[proc.pid].role == "main"
    assert {by_pid[p].role for p in (*busy, idle)} == {"worker"}
    assert [s.role for s in samples.processes].count("resource_tracker") == 1
    assert [s.role for s in samples.processes].count("main") == 1

    elapsed = time.monotonic() - t0
    for series in samples.processes:
        n = len(series.t)
        assert n >= 5, series
        assert _increasing(series.t) and 0 < series.t[0] and series.t[-1] <= elapsed
        assert len(series.cpu_percent) == len(series.rss) == len(series.threads) == n
        assert all(r > 0 for r in series.rss) and all(k >= 1 for k in series.threads)
        assert len(series.read_bytes) in (0, n) and len(series.read_chars) in (0, n)
        assert list(series.read_chars) == sorted(series.read_chars)  # cumulative

    idle_cpu = mean(by_pid[idle].cpu_percent)
    for pid in busy:
        busy_cpu = mean(by_pid[pid].cpu_percent)
        assert busy_cpu > idle_cpu + 5 and busy_cpu > 2 * idle_cpu, (busy_cpu, idle_cpu)

    host = samples.host
    n = len(host.t)
    assert 5 <= n <= 16 and _increasing(host.t)
    for column in (host.cpu_percent, host.per_core, host.mem_used, host.mem_available):
        assert len(column) == n
    for column in (host.iowait_percent, host.steal_percent, host.swap_used, host.disk_read_bps):
        assert len(column) in (0, n)
    assert len(host.iowait_percent) == n  # Linux has iowait and steal
    cores = len(psutil.cpu_times(percpu=True))
    assert all(len(c) == cores for c in host.per_core)
    assert all(0 <= v <= 100 for v in (*host.cpu_percent, *host.iowait_percent, *host.steal_percent))
    assert all(u > 0 and a > 0 for u, a in zip(host.mem_used, host.mem_available))
    assert samples.sampler_cpu_time > 0

    # the snapshot was a prefix of the final record
    assert 0 < len(partial.host.t) < n
    assert samples.host.t[: len(partial.host.t)] == partial.host.t
    assert Samples.from_dict(samples.to_dict()) == samples


@pytest.mark.slow  # each waits for a real process to end: kept out of the quick loop
@pytest.mark.parametrize("reap", [True, False], ids=["reaped", "zombie"])
def test_root_ending_stops_process_sampling_but_keeps_data(reap):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3)"])
    t0 = time.monotonic()
    sampling = start_sampling(proc.pid, t0, interval=0.05)
    if reap:
        proc.wait()
    else:
        while proc.poll() is None and psutil.Process(proc.pid).status() != psutil.STATUS_ZOMBIE:
            time.sleep(0.02)
    ended_at = time.monotonic() - t0
    time.sleep(0.4)
    samples = sampling.stop()
    proc.wait()

    (main,) = samples.processes
    assert main.role == "main" and main.pid == proc.pid
    assert 1 <= len(main.t) and main.t[-1] <= ended_at + 0.01
    assert samples.host.t[-1] > ended_at + 0.2  # the host is still sampled
    assert sampling.stop() is samples  # a second stop is harmless


def test_missing_root_process_gives_host_samples_only():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    sampling = start_sampling(proc.pid, time.monotonic(), interval=0.05)
    time.sleep(0.3)
    samples = sampling.stop()
    assert samples.processes == ()
    assert samples.host_availability.available and len(samples.host.t) >= 2


def _two_fake_gpus() -> FakePynvml:
    foreign = 1  # init: visible here, not part of the run
    return FakePynvml(
        [
            FakeGpu(processes=[(os.getpid(), 1 << 30), (foreign, 2 << 30)]),
            FakeGpu(
                unsupported={"nvmlDeviceGetPcieThroughput", "nvmlDeviceGetCurrentClocksEventReasons"},
                failing={"nvmlDeviceGetComputeRunningProcesses"},
                throttle_reasons=0x1,
                power_mw=50_000,
            ),
        ]
    )


def test_nvml_fake_values_units_and_unsupported_calls():
    fake = _two_fake_gpus()
    sampling = start_sampling(os.getpid(), time.monotonic(), interval=0.05, nvml_module=fake)
    time.sleep(0.6)
    samples = sampling.stop()

    assert samples.gpu_availability.available
    gpu0, gpu1 = samples.gpus
    assert (gpu0.index, gpu1.index) == (0, 1)
    n = len(gpu0.t)
    assert n >= 5 and _increasing(gpu0.t)
    for column in (gpu0.sm_util, gpu0.mem_util, gpu0.power_w, gpu0.sm_clock_mhz, gpu0.mem_used,
                   gpu0.temperature_c, gpu0.throttle_reasons, gpu0.pcie_rx_bps, gpu0.pcie_tx_bps,
                   gpu0.process_mem_used):
        assert len(column) == n
    assert set(gpu0.sm_util) == {75.0} and set(gpu0.mem_util) == {30.0}
    assert set(gpu0.power_w) == {123.456}  # mW -> W
    assert gpu0.power_limit_w == 300.0 and gpu0.sm_clock_max_mhz == 1980.0
    assert set(gpu0.sm_clock_mhz) == {1410.0} and set(gpu0.temperature_c) == {61.0}
    assert set(gpu0.mem_used) == {4 << 30} and gpu0.mem_total == 80 << 30
    assert set(gpu0.throttle_reasons) == {0x4}  # the current "event reasons" name
    # PCIe is read at most every PCIE_PERIOD_S (each read blocks 20 ms): some samples have it
    assert {v for v in gpu0.pcie_rx_bps if v is not None} == {1000.0 * KIB}  # KB/s -> B/s
    assert {v for v in gpu0.pcie_tx_bps if v is not None} == {500.0 * KIB}
    # the run's tree is os.getpid() and its children; pid 1 is not in it
    assert gpu0.process_mem_used[-1] == 1 << 30

    assert all(v is None for v in (*gpu1.pcie_rx_bps, *gpu1.pcie_tx_bps))
    assert fake.calls[("nvmlDeviceGetPcieThroughput", 1)] == 1  # not retried after Not Supported
    assert set(gpu1.throttle_reasons) == {0x1}  # fell back to the older name
    assert set(gpu1.process_mem_used) == {None}  # a failing call stores None...
    assert fake.calls[("nvmlDeviceGetComputeRunningProcesses", 1)] == n  # ...and is tried again
    assert set(gpu1.power_w) == {50.0}
    assert fake.shutdowns == 1
    assert Samples.from_dict(samples.to_dict()) == samples


@pytest.mark.parametrize(
    "fake, expected",
    [
        (FakePynvml([], init_error=NVMLError(NVML_ERROR_LIBRARY_NOT_FOUND)), "could not be loaded"),
        (FakePynvml([]), "found no NVIDIA GPU"),
    ],
    ids=["no-driver", "no-gpu"],
)
def test_nvml_unavailable_reasons(fake, expected):
    sampling = start_sampling(os.getpid(), time.monotonic(), interval=0.05, nvml_module=fake)
    samples = sampling.stop()
    assert not samples.gpu_availability.available
    assert samples.gpu_availability.reason.startswith("GPU metrics unavailable: ")
    assert expected in samples.gpu_availability.reason
    assert samples.gpus == ()


def _nvml_works() -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
        pynvml.nvmlShutdown()
        return True
    except Exception:
        return False


@pytest.mark.skipif(_nvml_works(), reason="NVML works on this machine")
def test_real_pynvml_without_gpu_is_unavailable_with_reason():
    sampling = start_sampling(os.getpid(), time.monotonic(), interval=0.05)
    time.sleep(0.2)
    running = sampling.snapshot()
    samples = sampling.stop()
    assert samples.gpus == () and running.gpus == ()
    assert not samples.gpu_availability.available
    assert samples.gpu_availability.reason.startswith("GPU metrics unavailable: ")
    assert len(samples.host.t) >= 1  # the host side is unaffected


def test_storage_stride_halves_the_rate_every_30_minutes_down_to_a_floor():
    assert storage_stride(0, 0.1) == 1
    assert storage_stride(FULL_RATE_S - 1, 0.1) == 1
    assert storage_stride(FULL_RATE_S, 0.1) == 2
    assert storage_stride(2 * FULL_RATE_S + 1, 0.1) == 4
    assert storage_stride(100 * FULL_RATE_S, 0.1) == int(MAX_STORED_PERIOD_S / 0.1)
    assert storage_stride(100 * FULL_RATE_S, 20.0) == 1
    # 6 hours at 10 Hz (216,000 ticks): ~36,000 stored, then one per 10 s
    stored = [k for k in range(1, 216_000) if k % storage_stride(k * 0.1, 0.1) == 0]
    assert len(stored) < 38_000
    assert sum(1 for k in stored if k * 0.1 >= 5 * 3600) <= 3600 / MAX_STORED_PERIOD_S + 1


@pytest.mark.slow  # seconds of real sampling: kept out of the quick loop, run in CI
def test_thinning_applies_to_live_sampling():
    speed = 5400.0  # a clock 5400x faster than real time: 1/3 s real = 30 min of run
    real0 = time.monotonic()

    def clock() -> float:
        return real0 + (time.monotonic() - real0) * speed

    sampling = start_sampling(os.getpid(), clock(), interval=0.05, clock=clock)
    time.sleep(1.2)
    t = sampling.stop().host.t
    early = [x for x in t if x < FULL_RATE_S]
    late = [x for x in t if x >= 2 * FULL_RATE_S]  # stride 4, then 8: ~3 stored in 0.53 s (10 at full rate)
    assert len(early) >= 4
    assert len(late) <= 7, late


@pytest.mark.parametrize(
    "cmdline, parent_cmdline, is_python, role",
    [
        ("python -c from multiprocessing.resource_tracker import main;main(5)", "", True, "resource_tracker"),
        ("python -c from multiprocessing.semaphore_tracker import main", "", True, "resource_tracker"),
        ("python -c from multiprocessing.forkserver import main; main(7)", "python train.py", True, "other"),
        ("python -c from multiprocessing.forkserver import main; main(7)",
         "python -c from multiprocessing.forkserver import main; main(7)", True, "worker"),
        ("python train.py --epochs 3", "python train.py --epochs 3", True, "worker"),
        ("/usr/bin/nvidia-smi", "python train.py", False, "other"),
    ],
)
def test_classify_role(cmdline, parent_cmdline, is_python, role):
    assert classify_role(101, 100, cmdline, is_python, parent_cmdline) == role
    assert classify_role(100, 100, cmdline, is_python, parent_cmdline) == "main"
