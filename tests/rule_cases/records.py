"""Run records built from the dataclasses, for rule tests.

These are fakes of hardware and of measurements: ``gpu_record()`` stands for a
clean run on an H100-class GPU (numbers in the range such runs give), and
``cpu_record()`` for a clean run on a 2-core machine without a GPU. Each rule
case starts from one of them and changes only what its pattern needs, with the
``with_*`` helpers below.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from trainprobe.facts.window import steady_steps
from trainprobe.record import (
    Availability, Compute, ComputePeak, FlopCount, DiskInfo, Environment, GpuInfo, GpuSeries, Hotspots, HostSamples,
    LoaderSettings, ModelInfo, OptimizerSettings, Outcome, ProcessSeries, ProfilerSummary,
    RunRecord, SchedulerSettings, Settings, Step,
)

__all__ = ["gpu_record", "cpu_record", "with_steps", "with_loader", "with_settings",
           "with_model", "with_optimizer", "with_profiler", "with_gpu", "with_env",
           "with_host", "with_workers", "with_hotspots", "with_outcome", "with_compute", "with_samples_per_step",
           "with_memory", "GIB", "MIB"]

GIB = 1024 ** 3
MIB = 1024 ** 2
N_STEPS = 20
WARMUP = 3


def _steps(duration: float, phases: dict[str, float], gpu_busy: Optional[float],
           samples: int, epoch_every: Optional[int] = None,
           epoch_wait: float = 0.0) -> tuple[Step, ...]:
    out, t = [], 0.0
    for i in range(WARMUP + N_STEPS):
        epoch_start = i == 0 or bool(epoch_every and i % epoch_every == 0)
        wait = phases.get("data_wait", 0.0) + (epoch_wait if epoch_start and i else 0.0)
        dur = duration + (wait - phases.get("data_wait", 0.0))
        out.append(Step(
            index=i, start=t, duration=dur, data_wait=wait, h2d=phases.get("h2d", 0.0),
            forward=phases.get("forward", 0.0), backward=phases.get("backward", 0.0),
            optimizer=phases.get("optimizer", 0.0), zero_grad=phases.get("zero_grad", 0.0),
            eval=phases.get("eval", 0.0), other=phases.get("other", 0.0),
            phase="warmup" if i < WARMUP else "steady", batches=1, samples=samples,
            epoch_start=epoch_start, gpu_busy=gpu_busy,
        ))
        t += dur
    return tuple(out)


def _series(n: int, end: float) -> tuple[float, ...]:
    return tuple(end * k / (n - 1) for k in range(n))


def _processes(end: float, main_cpu: float, workers: int, worker_cpu: float):
    t = _series(30, end)
    main = ProcessSeries(pid=100, role="main", t=t, cpu_percent=(main_cpu,) * 30,
                         read_bytes=(0,) * 30, read_chars=(0,) * 30, threads=(8,) * 30)
    return (main,) + tuple(
        ProcessSeries(pid=200 + w, role="worker", t=t, cpu_percent=(worker_cpu,) * 30,
                      read_bytes=(0,) * 30, read_chars=(0,) * 30, threads=(1,) * 30)
        for w in range(workers))


_GPU_PHASES = dict(data_wait=0.001, h2d=0.0005, forward=0.015, backward=0.026,
                   optimizer=0.0055, zero_grad=0.0002, other=0.002)
_CPU_PHASES = dict(data_wait=0.003, h2d=0.0, forward=0.04, backward=0.06, optimizer=0.012,
                   zero_grad=0.0005, other=0.005)


def gpu_record() -> RunRecord:
    """A clean ResNet-style run on one H100-class GPU: bf16 autocast, fused AdamW, 8 workers."""
    steps = _steps(0.05, _GPU_PHASES, gpu_busy=0.046, samples=256)
    end = steps[-1].start + steps[-1].duration
    t = _series(60, end)
    gpu = GpuSeries(
        index=0, t=t, sm_util=(97.0,) * 60, mem_util=(60.0,) * 60, power_w=(560.0,) * 60,
        power_limit_w=700.0, sm_clock_mhz=(1980.0,) * 60, sm_clock_max_mhz=1980.0,
        mem_used=(30 * GIB,) * 60, mem_total=80 * GIB, temperature_c=(65.0,) * 60,
        throttle_reasons=(0,) * 60, process_mem_used=(28 * GIB,) * 60)
    return RunRecord(
        environment=Environment(
            cuda_available=True, gpu_count=1, logical_cores=32, physical_cores=16,
            usable_cores=16, torch_threads=16, ram_total=256 * GIB,
            nvml=Availability(True), pillow_simd=False, libjpeg_turbo=True,
            gpus=(GpuInfo(index=0, name="NVIDIA H100 80GB HBM3", memory_total=80 * GIB,
                          compute_capability="9.0", power_limit_w=700.0, bf16=True,
                          tf32=True),),
            disks=(DiskInfo(path="/data", rotational=False, network=False),)),
        settings=Settings(
            dataloaders=(LoaderSettings(loader_id=0, batch_size=256, num_workers=8,
                                        pin_memory=True, persistent_workers=True,
                                        prefetch_factor=2, start_method="fork",
                                        dataset_len=50000, iterations=1, batches=23,
                                        used_in_training=True),),
            optimizers=(OptimizerSettings(type="torch.optim.adamw.AdamW", lr=1e-3,
                                          weight_decay=0.01, fused=True, steps=23),),
            schedulers=(SchedulerSettings(type="torch.optim.lr_scheduler.OneCycleLR",
                                          steps=23),),
            models=(ModelInfo(type="torchvision.models.resnet.ResNet", params=11_000_000,
                              dtypes=("float32",), devices=("cuda:0",), channels_last=True,
                              has_conv=True, has_batchnorm=True, calls=23, train_calls=23,
                              input_shapes=("(256, 3, 32, 32)",)),),
            zero_grad_calls=23, autocast_forwards=23, autocast_device="cuda",
            autocast_dtype="bfloat16", cudnn_enabled=True, cudnn_benchmark=True,
            float32_matmul_precision="high", cuda_matmul_allow_tf32=True,
            anomaly_detection=False, autograd_profiler_enabled=False,
            cuda_launch_blocking=False, cuda_available=True, cuda_used=True,
            devices_used=("cuda:0",), torch_threads=16, backward_calls=23,
            optimizer_steps=23, step_boundary="optimizer", grad_accumulation=1.0),
        steps=steps,
        profiler=ProfilerSummary(
            availability=Availability(True), activities=("CPU", "CUDA"), steps=5, wall=0.25,
            cpu_total=0.10, cuda_total=0.22, ops_per_step=1500, toplevel_ops_per_step=420,
            mean_toplevel_op_time=30e-6, launches_per_step=450, kernels_per_step=450,
            mean_kernel_time=100e-6, h2d_copies_per_step=2, h2d_bytes_per_step=788_480,
            h2d_pageable_bytes_per_step=0, d2h_copies_per_step=0, syncs_per_step=0,
            sync_time_per_step=0.0, gpu_idle_share=0.06, matmul_conv_share=0.70,
            fp32_matmul_conv_share=0.03, conv_ops=100, peak_memory_allocated=26 * GIB),
        samples=replace(
            _samples(end, cpu=40.0, workers=8, worker_cpu=30.0), gpus=(gpu,),
            gpu_availability=Availability(True)),
        outcome=Outcome(status="stopped", exit_code=0, duration=end + 5.0, startup=3.0),
    )


def _samples(end: float, cpu: float, workers: int, worker_cpu: float, main_cpu: float = 100.0):
    from trainprobe.record import Samples  # local: keeps the import list above readable
    t = _series(30, end)
    host = HostSamples(t=t, cpu_percent=(cpu,) * 30, iowait_percent=(0.5,) * 30,
                       steal_percent=(0.0,) * 30, swap_used=(0,) * 30,
                       disk_read_bps=(1e6,) * 30)
    return Samples(host=host, host_availability=Availability(True),
                   processes=_processes(end, main_cpu, workers, worker_cpu))


def cpu_record() -> RunRecord:
    """A clean small-CNN run on a 2-core machine without a GPU: 1 worker, SGD + OneCycleLR."""
    steps = _steps(0.12, _CPU_PHASES, gpu_busy=None, samples=64)
    end = steps[-1].start + steps[-1].duration
    return RunRecord(
        environment=Environment(
            cuda_available=False, gpu_count=0, logical_cores=2, physical_cores=2,
            usable_cores=2, torch_threads=2, ram_total=24 * GIB,
            nvml=Availability(False, "NVML library not found"), pillow_simd=False,
            disks=(DiskInfo(path="/work", rotational=True, network=False),)),
        settings=Settings(
            dataloaders=(LoaderSettings(loader_id=0, batch_size=64, num_workers=1,
                                        persistent_workers=True, prefetch_factor=2,
                                        start_method="fork", dataset_len=10000,
                                        iterations=1, batches=23, used_in_training=True),),
            optimizers=(OptimizerSettings(type="torch.optim.sgd.SGD", lr=0.05,
                                          weight_decay=5e-4, steps=23),),
            schedulers=(SchedulerSettings(type="torch.optim.lr_scheduler.OneCycleLR",
                                          steps=23),),
            models=(ModelInfo(type="SmallCNN", params=500_000, dtypes=("float32",),
                              devices=("cpu",), channels_last=False, has_conv=True,
                              calls=23, train_calls=23, input_shapes=("(64, 3, 32, 32)",)),),
            zero_grad_calls=23, cudnn_benchmark=False, float32_matmul_precision="highest",
            cuda_matmul_allow_tf32=False, anomaly_detection=False,
            autograd_profiler_enabled=False, cuda_available=False, cuda_used=False,
            devices_used=("cpu",), torch_threads=2, backward_calls=23, optimizer_steps=23,
            step_boundary="optimizer", grad_accumulation=1.0),
        steps=steps,
        profiler=ProfilerSummary(
            availability=Availability(True), activities=("CPU",), steps=5, wall=0.6,
            cpu_total=0.55, ops_per_step=1400, toplevel_ops_per_step=418,
            mean_toplevel_op_time=250e-6, syncs_per_step=0, matmul_conv_share=0.6,
            fp32_matmul_conv_share=0.6, conv_ops=40),
        samples=_samples(end, cpu=90.0, workers=1, worker_cpu=20.0, main_cpu=170.0),
        outcome=Outcome(status="stopped", exit_code=0, duration=end + 2.0, startup=1.5),
    )


# --- helpers that change one part of a record -------------------------------------------

def with_steps(record: RunRecord, duration: Optional[float] = None, gpu_busy=-1.0,
               epoch_every: Optional[int] = None, epoch_wait: float = 0.0,
               **phases: float) -> RunRecord:
    """New steps: phases default to the record's, ``other`` absorbs what the rest leave."""
    first = steady_steps(record)[0]
    merged = {p: getattr(first, p) for p in ("data_wait", "h2d", "forward", "backward",
                                              "optimizer", "zero_grad", "eval", "other")}
    merged.update(phases)
    if duration is None:
        duration = sum(v for k, v in merged.items() if k != "zero_grad")
    elif "other" not in phases:
        merged["other"] = max(0.0, duration - sum(v for k, v in merged.items()
                                                   if k not in ("other", "zero_grad")))
    busy = first.gpu_busy if gpu_busy == -1.0 else gpu_busy
    steps = _steps(duration, merged, busy, first.samples or 0, epoch_every, epoch_wait)
    return replace(record, steps=steps)


def _part(record: RunRecord, name: str, **changes) -> RunRecord:
    return replace(record, **{name: replace(getattr(record, name), **changes)})


def with_settings(record: RunRecord, **changes) -> RunRecord:
    return _part(record, "settings", **changes)


def with_env(record: RunRecord, **changes) -> RunRecord:
    return _part(record, "environment", **changes)


def with_profiler(record: RunRecord, **changes) -> RunRecord:
    return _part(record, "profiler", **changes)


def with_blocking_copies(record: RunRecord, idle: float) -> RunRecord:
    """A device timeline on which the GPU idles ``idle`` seconds per step while the host waits in
    blocking copies (from pageable memory): what copying costs a GPU step (facts/device.exposed_copy)."""
    per_step = record.profiler.wall / record.profiler.steps
    return with_profiler(record, gpu_busy_per_step=per_step - idle, gpu_idle_by_cause={"sync": idle},
                         device_time_by_class={"compute": per_step - idle, "copy": 0.0})


def with_outcome(record: RunRecord, **changes) -> RunRecord:
    return _part(record, "outcome", **changes)


def with_hotspots(record: RunRecord, **changes) -> RunRecord:
    changes.setdefault("availability", Availability(True))
    return replace(record, hotspots=replace(record.hotspots or Hotspots(), **changes))


def _first(record: RunRecord, field: str, **changes) -> RunRecord:
    items = getattr(record.settings, field)
    return with_settings(record, **{field: (replace(items[0], **changes),) + items[1:]})


def with_loader(record: RunRecord, **changes) -> RunRecord:
    return _first(record, "dataloaders", **changes)


def with_model(record: RunRecord, **changes) -> RunRecord:
    return _first(record, "models", **changes)


def with_optimizer(record: RunRecord, **changes) -> RunRecord:
    return _first(record, "optimizers", **changes)


def with_gpu(record: RunRecord, **changes) -> RunRecord:
    """Constant GPU samples: pass scalars (sm_util=40.0) for the per-sample series."""
    gpu = record.samples.gpus[0]
    n = len(gpu.t)
    series = {k: (v,) * n if k in _GPU_SERIES else v for k, v in changes.items()}
    return replace(record, samples=replace(record.samples, gpus=(replace(gpu, **series),)))


_GPU_SERIES = {"sm_util", "mem_util", "power_w", "sm_clock_mhz", "mem_used", "temperature_c",
               "throttle_reasons", "pcie_rx_bps", "pcie_tx_bps", "process_mem_used"}


def with_host(record: RunRecord, **changes) -> RunRecord:
    """Constant host samples: pass scalars (iowait_percent=30.0)."""
    host = record.samples.host
    n = len(host.t)
    series = {k: (v,) * n for k, v in changes.items()}
    return replace(record, samples=replace(record.samples, host=replace(host, **series)))


def with_cpu_wait(record: RunRecord, main: float, worker: float = 0.0) -> RunRecord:
    """Run-queue waits (/proc schedstat): each process's threads wait ``main`` (or ``worker``)
    seconds for a core per second of run."""
    procs = tuple(replace(p, cpu_wait=tuple(round((main if p.role == "main" else worker) * t, 6) for t in p.t))
                  for p in record.samples.processes)
    return replace(record, samples=replace(record.samples, processes=procs))


def with_kernel_time(record: RunRecord, system_share: float, faults_per_s: float, libc: str = "glibc 2.36",
                     preload: str = "") -> RunRecord:
    """The training process's CPU split between its own code and the kernel (``system_share``), and its minor
    page faults (/proc/PID/stat), cumulative like the sampler's; and the C library and preloaded allocator."""
    def kernel(p):
        if p.role != "main":
            return p
        cpu, total = [], 0.0
        for i, percent in enumerate(p.cpu_percent):  # CPU seconds used, summed as the kernel counts them
            total += percent / 100.0 * (p.t[i] - p.t[i - 1]) if i else 0.0
            cpu.append(total)
        return replace(p, cpu_user=tuple(round(c * (1 - system_share), 6) for c in cpu),
                       cpu_system=tuple(round(c * system_share, 6) for c in cpu),
                       minor_faults=tuple(int(faults_per_s * t) for t in p.t))
    procs = tuple(kernel(p) for p in record.samples.processes)
    record = replace(record, samples=replace(record.samples, processes=procs))
    return with_env(record, libc=libc, malloc_preload=preload)


def with_workers(record: RunRecord, count: int, cpu_percent: float) -> RunRecord:
    """The sampler's worker processes: ``count`` of them at ``cpu_percent`` each."""
    end = record.steps[-1].start + record.steps[-1].duration
    main = [p for p in record.samples.processes if p.role == "main"]
    main_cpu = main[0].cpu_percent[0] if main else 100.0
    return replace(record, samples=replace(
        record.samples, processes=_processes(end, main_cpu, count, cpu_percent)))


def with_compute(record: RunRecord, flops: float, samples: int, peak: float, dtype: str = "fp32",
                 source: str = "measured", other_peaks: Optional[dict] = None) -> RunRecord:
    """A counted step of ``flops`` (matrix products in ``dtype``) on ``samples`` samples, against a ceiling of
    ``peak`` FLOP/s measured (CPU) or from the datasheet (GPU)."""
    counted = FlopCount(availability=Availability(True), steps=2, samples=samples, flops=flops,
                        by_phase={"forward": flops / 3, "backward": 2 * flops / 3}, by_dtype={dtype: flops})
    ceiling = ComputePeak(availability=Availability(True), source=source, device="a test device",
                          flops_per_s={dtype: peak, **(other_peaks or {})})
    return replace(record, compute=Compute(flops=counted, peak=ceiling))


def with_samples_per_step(record: RunRecord, samples: int) -> RunRecord:
    return replace(record, steps=tuple(replace(s, samples=samples) for s in record.steps))


def with_memory(record: RunRecord, census: Optional[dict] = None, **memory) -> RunRecord:
    """A counted step's memory (``census``: MemoryCensus fields; available, on the record's device unless given)
    and the run's limits (``memory``: Memory fields such as limit, limit_source, free_at_start)."""
    from trainprobe.record import Memory, MemoryCensus
    base = record.memory if record.memory is not None else Memory()
    if census is not None:
        fields = {"availability": Availability(True), "device": "cuda" if record.settings.cuda_used else "cpu",
                  "steps": 2, **census}
        base = replace(base, census=MemoryCensus(**fields))
    return replace(record, memory=replace(base, **memory))
