"""Run records and diagnoses built in code for the report tests.

These are FAKES of hardware and clocks (a made-up GPU, synthetic sample
series), as STYLE.md allows: they exercise the rendering of each section and
the size of long runs. Recorded real runs live in tests/data/runs/ and are
rendered too when present.
"""

from __future__ import annotations

import math
from dataclasses import replace

from trainprobe.engine import rank_findings
from trainprobe.facts import compute_facts
from trainprobe.findings import Diagnosis, Evidence, Finding, Gain, RuleDocs, Verdict, Verification
from trainprobe.record import (Availability, DiskInfo, Environment, FuncStat, GpuInfo, GpuSeries, Hotspots,
                               HostSamples, Invocation, LoaderSettings, ModelInfo, OpStat, OptimizerSettings,
                               Outcome, ProcessSeries, ProfilerSummary, RunRecord, Samples, Settings, Step,
                               WorkerStats)

GIB = 2**30
XSS = "<img src=x onerror=alert(1)>"


def _env(gpu: bool) -> Environment:
    gpus = (GpuInfo(index=0, name="FAKE GPU A100-SXM4-40GB", memory_total=40 * GIB, compute_capability="8.0",
                    power_limit_w=400.0, power_max_w=400.0, pcie_gen=4, pcie_gen_max=4, pcie_width=16,
                    pcie_width_max=16, bf16=True, tf32=True),) if gpu else ()
    return Environment(
        python="3.11.9", platform="Linux-6.1-x86_64", torch="2.15.0", torch_cuda_build="12.4" if gpu else None,
        torchvision="0.29.0", cudnn=90100 if gpu else None, cuda_available=gpu, gpu_count=len(gpus), gpus=gpus,
        driver="550.54" if gpu else None,
        nvml=Availability(True) if gpu else Availability(False, "NVML library not found (no NVIDIA driver)"),
        cpu_model="FAKE CPU 16-core", logical_cores=16, physical_cores=8, usable_cores=16, ram_total=64 * GIB,
        swap_total=0, shm_total=32 * GIB, pillow="10.4.0", pillow_simd=False, libjpeg_turbo=True,
        torch_threads=8, torch_interop_threads=8,
        disks=(DiskInfo(path="/data", device="/dev/nvme0n1p1", fstype="ext4", rotational=False,
                        free_bytes=300 * GIB, total_bytes=900 * GIB, network=False),),
    )


def _steps(n_warm: int, n_steady: int, n_prof: int, n_cprof: int, *, wait: float, compute: float,
           t0: float = 3.0, batch: int = 64, gpu: bool = True) -> tuple[Step, ...]:
    steps, t = [], t0
    phases = ["warmup"] * n_warm + ["steady"] * n_steady + ["profiled"] * n_prof + ["cprofile"] * n_cprof
    for i, phase in enumerate(phases):
        slow = 3.0 if phase == "warmup" else (1.04 if phase == "profiled" else (1.3 if phase == "cprofile" else 1.0))
        jitter = 1 + 0.08 * math.sin(i * 1.7)
        dw = wait * jitter * (2.5 if i % 25 == 0 else 1.0)
        fw, bw, opt = 0.3 * compute * slow, 0.55 * compute * slow, 0.1 * compute * slow
        h2d, other = 0.004, 0.006
        dur = dw + fw + bw + opt + h2d + other
        steps.append(Step(index=i, start=t, duration=dur, data_wait=dw, h2d=h2d, forward=fw, backward=bw,
                          optimizer=opt, other=other, zero_grad=0.001, probe=0.0004, phase=phase, batches=1,
                          samples=batch, epoch_start=(i % 50 == 0), gpu_busy=(fw + bw + opt) * 0.9 if gpu else None))
        t += dur
    return tuple(steps)


def _series(n: int, dt: float, f, t0: float = 0.0) -> tuple[tuple[float, ...], tuple[float, ...]]:
    t = tuple(round(t0 + i * dt, 3) for i in range(n))
    return t, tuple(f(i, ti) for i, ti in enumerate(t))


def _samples(duration: float, *, gpu: bool, workers: int, gpu_busy: float, hz: float = 10.0,
             main_cpu: float = 100.0, worker_cpu: float = 95.0) -> Samples:
    dt = 1 / hz
    n = int(duration * hz)
    t, cpu = _series(n, dt, lambda i, ti: min(100.0, 30 + 20 * math.sin(ti / 3)))
    host = HostSamples(t=t, cpu_percent=cpu, iowait_percent=tuple(1.0 for _ in t), steal_percent=tuple(0.0 for _ in t),
                       mem_used=tuple(int(12 * GIB + i * 1000) for i in range(n)),
                       mem_available=tuple(int(50 * GIB) for _ in t), swap_used=tuple(0 for _ in t),
                       disk_read_bps=tuple(5e7 * (1 + math.sin(ti)) if ti > 3 else 0.0 for ti in t))
    procs = [ProcessSeries(pid=4242, role="main", cmdline="python train.py", t=t,
                           cpu_percent=tuple(main_cpu * (0.8 + 0.2 * math.sin(i / 7)) for i in range(n)),
                           rss=tuple(2 * GIB for _ in t), read_bytes=tuple(i * 1000 for i in range(n)),
                           read_chars=tuple(i * 2000 for i in range(n)), threads=tuple(12 for _ in t))]
    for w in range(workers):
        procs.append(ProcessSeries(pid=4300 + w, role="worker", cmdline="python train.py", t=t,
                                   cpu_percent=tuple(0.0 if ti < 3 else worker_cpu * (0.9 + 0.1 * math.sin(i / 5 + w))
                                                     for i, ti in enumerate(t)),
                                   rss=tuple(GIB for _ in t), read_bytes=tuple(i * 5000 for i in range(n)),
                                   read_chars=tuple(i * 9000 for i in range(n)), threads=tuple(2 for _ in t)))
    gpus = ()
    if gpu:
        def util(i, ti):
            if ti < 3:
                return 0.0
            return 100.0 if (i % 10) < round(10 * gpu_busy) else 0.0
        gt, sm = _series(n, dt, util)
        gpus = (GpuSeries(index=0, t=gt, sm_util=sm, mem_util=tuple(v * 0.4 for v in sm),
                          power_w=tuple(60 + 3.0 * v for v in sm), power_limit_w=400.0,
                          sm_clock_mhz=tuple(1410.0 for _ in gt), sm_clock_max_mhz=1410.0,
                          mem_used=tuple(int((0.5 if ti < 3 else 14) * GIB) for ti in gt), mem_total=40 * GIB,
                          temperature_c=tuple(55.0 for _ in gt), throttle_reasons=tuple(0 for _ in gt),
                          pcie_rx_bps=tuple(1e9 for _ in gt), pcie_tx_bps=tuple(1e8 for _ in gt),
                          process_mem_used=tuple(int((0.3 if ti < 3 else 13) * GIB) for ti in gt)),)
    return Samples(interval=dt, host=host, host_availability=Availability(True), processes=tuple(procs), gpus=gpus,
                   gpu_availability=Availability(True) if gpu else Availability(False, "NVML library not found (no NVIDIA driver)"),
                   sampler_cpu_time=0.8)


def _profiler(cuda: bool) -> ProfilerSummary:
    cpu_ops = (OpStat("aten::convolution", 400, 0.21, 0.9, 0.0, 0.0, "[[64, 3, 224, 224], [64, 3, 7, 7]]"),
               OpStat("aten::copy_", 120, 0.05, 0.06, 0.004, 0.004),
               OpStat("aten::add_", 900, 0.03, 0.03, 0.002, 0.002),
               OpStat("Optimizer.step#SGD.step", 10, 0.02, 0.2, 0.0, 0.0))
    cuda_ops = (OpStat("sm80_xmma_fprop_implicit_gemm", 400, 0.0, 0.0, 0.32, 0.32),
                OpStat("void at::native::vectorized_elementwise_kernel<4, ...>", 900, 0.0, 0.0, 0.05, 0.05)) if cuda else ()
    return ProfilerSummary(availability=Availability(True), activities=("CPU", "CUDA") if cuda else ("CPU",),
                           steps=10, wall=2.6, cpu_total=1.2, cuda_total=0.4 if cuda else 0.0, ops_per_step=812,
                           toplevel_ops_per_step=160, mean_toplevel_op_time=2e-5,
                           launches_per_step=310 if cuda else None, kernels_per_step=310 if cuda else None,
                           mean_kernel_time=1.2e-4 if cuda else None, h2d_copies_per_step=2,
                           h2d_bytes_per_step=38_535_168, h2d_pageable_bytes_per_step=38_535_168,
                           syncs_per_step=1, sync_calls={"aten::item": 1.0}, gpu_idle_share=0.71 if cuda else None,
                           matmul_conv_share=0.8, fp32_matmul_conv_share=1.0, conv_ops=53,
                           top_cpu_ops=cpu_ops, top_cuda_ops=cuda_ops)


def _hotspots() -> Hotspots:
    return Hotspots(availability=Availability(True), window=3.1, steps=10, worker_window=11.5,
                    main=(FuncStat("/home/u/proj/train.py", 41, "train_step", 10, 0.02, 2.9, True, "python"),
                          FuncStat("/usr/lib/python3.11/site-packages/torch/utils/data/dataloader.py", 1300,
                                   "_next_data", 10, 0.01, 1.9, False, "torch")),
                    workers=(FuncStat("/usr/lib/python3.11/site-packages/PIL/ImageFile.py", 250, "load", 640, 6.1, 6.3, False, "decode"),
                             FuncStat("/usr/lib/python3.11/site-packages/torchvision/transforms/functional.py", 500,
                                      "resize", 640, 3.2, 3.2, False, "transform"),
                             FuncStat("/home/u/proj/data.py", 12, "__getitem__", 640, 0.3, 10.2, True, "python")),
                    worker_categories={"decode": 0.55, "transform": 0.3, "collate": 0.05, "python": 0.1})


def _settings(gpu: bool, workers: int) -> Settings:
    dev = "cuda:0" if gpu else "cpu"
    return Settings(
        dataloaders=(LoaderSettings(loader_id=0, batch_size=64, num_workers=workers, pin_memory=False,
                                    persistent_workers=False, prefetch_factor=2 if workers else None,
                                    start_method="fork" if workers else None,
                                    dataset_type="torchvision.datasets.folder.ImageFolder", dataset_len=12800,
                                    sampler_type="torch.utils.data.sampler.RandomSampler",
                                    created_at="train.py:30", iterations=2, batches=70, wait_total=11.9,
                                    first_batch_wait=1.8, used_in_training=True),),
        optimizers=(OptimizerSettings(type="torch.optim.sgd.SGD", lr=0.1, weight_decay=1e-4, param_groups=1,
                                      params=11_689_512, param_devices=(dev,), steps=70),),
        models=(ModelInfo(type="torchvision.models.resnet.ResNet", params=11_689_512, trainable_params=11_689_512,
                          param_bytes=46_758_048, dtypes=("torch.float32",), devices=(dev,), channels_last=False,
                          has_conv=True, has_batchnorm=True, calls=70, train_calls=70,
                          input_shapes=("[64, 3, 224, 224]",)),),
        zero_grad_calls=70, cudnn_enabled=gpu, cudnn_benchmark=False, float32_matmul_precision="highest",
        cuda_matmul_allow_tf32=False, cudnn_allow_tf32=True, cuda_available=gpu, cuda_used=gpu,
        devices_used=(dev,), torch_threads=8, backward_calls=70, optimizer_steps=70, step_boundary="optimizer",
        env_flags={"OMP_NUM_THREADS": "8"},
    )


def _invocation(script: str = "/home/u/proj/train.py", args: tuple[str, ...] = ("--epochs", "3")) -> Invocation:
    return Invocation(script=script, args=args, cwd="/home/u/proj",
                      command_line="python " + " ".join((script,) + args), started_at="2026-11-21T22:30:00+00:00",
                      python_executable="/usr/bin/python3", trainprobe_version="0.1.0", options={"window": "default"})


def input_bound_record() -> RunRecord:
    steps = _steps(5, 40, 10, 10, wait=0.17, compute=0.07)
    end = steps[-1].start + steps[-1].duration + 0.5
    return RunRecord(invocation=_invocation(), environment=_env(True), settings=_settings(True, 2), steps=steps,
                     profiler=_profiler(True), hotspots=_hotspots(),
                     workers=(WorkerStats(pid=4300, worker_id=0, batches=35, fetch=11.0),
                              WorkerStats(pid=4301, worker_id=1, batches=35, fetch=11.2)),
                     samples=_samples(end, gpu=True, workers=2, gpu_busy=0.3),
                     outcome=Outcome(status="stopped", exit_code=0, reason="trainprobe stopped the script after its measurement window.",
                                     duration=end, startup=3.0),
                     notes=("Another process used 20% of the CPU during the run; timings may be noisy.",))


def compute_bound_record() -> RunRecord:
    steps = _steps(5, 40, 10, 10, wait=0.002, compute=0.2)
    end = steps[-1].start + steps[-1].duration + 0.5
    return RunRecord(invocation=_invocation(), environment=_env(True), settings=_settings(True, 8), steps=steps,
                     profiler=_profiler(True), hotspots=_hotspots(),
                     samples=_samples(end, gpu=True, workers=8, gpu_busy=0.97, worker_cpu=30.0),
                     outcome=Outcome(status="completed", exit_code=0, reason="The script ended by itself.",
                                     duration=end, startup=3.0))


def no_gpu_record() -> RunRecord:
    steps = _steps(3, 30, 5, 5, wait=0.01, compute=0.3, gpu=False)
    end = steps[-1].start + steps[-1].duration + 0.5
    prof = replace(_profiler(False), gpu_idle_share=None)
    return RunRecord(invocation=_invocation(), environment=_env(False), settings=_settings(False, 0), steps=steps,
                     profiler=prof, hotspots=Hotspots(availability=Availability(False, "cProfile was turned off (--no-cprofile)")),
                     samples=_samples(end, gpu=False, workers=0, gpu_busy=0.0, main_cpu=780.0),
                     outcome=Outcome(status="completed", exit_code=0, reason="The script ended by itself.",
                                     duration=end, startup=2.0))


CRASH_TRACEBACK = """Traceback (most recent call last):
  File "/home/u/proj/train.py", line 12, in <module>
    model = build_model()
  File "/home/u/proj/train.py", line 8, in build_model
    raise RuntimeError("CUDA error: out of memory </script><script>alert(1)</script>")
RuntimeError: CUDA error: out of memory </script><script>alert(1)</script>"""


def crashed_record() -> RunRecord:
    return RunRecord(invocation=_invocation(), environment=_env(True), settings=Settings(),
                     profiler=ProfilerSummary(availability=Availability(False, "the run ended before the profiler window")),
                     hotspots=Hotspots(availability=Availability(False, "the run ended before the cProfile window")),
                     samples=_samples(1.6, gpu=True, workers=0, gpu_busy=0.0),
                     outcome=Outcome(status="failed", exit_code=1, exception_type="RuntimeError",
                                     exception_message="CUDA error: out of memory </script><script>alert(1)</script>",
                                     traceback=CRASH_TRACEBACK, reason="The script raised RuntimeError before its first training step.",
                                     duration=1.6, startup=None, oom=True))


def xss_record() -> RunRecord:
    rec = crashed_record()
    script = f"/home/u/proj/{XSS}.py"
    inv = _invocation(script=script, args=("--name", "</script><b>bold</b>"))
    prof = replace(_profiler(True), top_cpu_ops=(OpStat(f"my_op{XSS}", 1, 0.1, 0.1, 0.0, 0.0),))
    hs = replace(_hotspots(), main=(FuncStat(f"/home/u/proj/{XSS}.py", 3, f"fn{XSS}", 1, 0.1, 0.1, True, "python"),))
    return replace(rec, invocation=inv, profiler=prof, hotspots=hs, steps=input_bound_record().steps[:10],
                   notes=(f"note {XSS}",))


def long_record(hours: float = 1.0, hz: float = 10.0, workers: int = 8) -> RunRecord:
    """An hour at 10 Hz with several processes and one GPU (fake clock and hardware), for the size test."""
    duration = hours * 3600
    n_steps = int(duration / 0.25)
    steps = _steps(20, n_steps - 20, 0, 0, wait=0.15, compute=0.09)
    return RunRecord(invocation=_invocation(), environment=_env(True), settings=_settings(True, workers),
                     steps=steps, profiler=_profiler(True), hotspots=_hotspots(),
                     samples=_samples(duration, gpu=True, workers=workers, gpu_busy=0.4, hz=hz),
                     outcome=Outcome(status="completed", exit_code=0, duration=duration, startup=3.0))


def _finding(fid: str, category: str, severity: str, title: str, message: str, advice: str, snippet: str,
             evidence: tuple[Evidence, ...], speedup: float, seconds: float) -> Finding:
    return Finding(id=fid, name=fid, category=category, severity=severity, title=title, message=message,
                   advice=advice, snippet=snippet, evidence=evidence,
                   gain=Gain(seconds_per_step=seconds, speedup=speedup, text=f"about {speedup:.1f}× faster steps"),
                   docs=RuleDocs(what="Detects a training loop that waits for its DataLoader.",
                                 why="The GPU sits idle while the workers decode images.",
                                 evidence="Share of the step spent in DataLoader.__next__, from the hooks.",
                                 fix="Raise num_workers up to the usable cores.",
                                 references=("https://pytorch.org/docs/stable/data.html#multi-process-data-loading",
                                             "javascript:alert(1)")),
                   source=f"rules/{fid}.toml")


def _diagnosis(record: RunRecord, verdict: Verdict, findings=(), **kw) -> Diagnosis:
    """A diagnosis as the engine builds it: the record's real facts, findings in the engine's order
    (only the verdict and the findings themselves are made up)."""
    return Diagnosis(verdict=verdict, findings=tuple(rank_findings(list(findings))),
                     facts=compute_facts(record), **kw)


def input_bound_diagnosis() -> Diagnosis:
    findings = (
        _finding("dataloader-pin-memory-off", "copy", "info", "pin_memory is off",
                 "Batches are copied from pageable memory (37 MiB per step).", "Pass pin_memory=True to the DataLoader.",
                 "DataLoader(dataset, batch_size=64, num_workers=8, pin_memory=True)",
                 (Evidence("pageable H2D bytes per step", "37 MiB", "> 1 MiB"),), 1.02, 0.004),
        _finding("dataloader-too-few-workers", "input", "critical", "Too few DataLoader workers",
                 "The loop waits for data 70% of each step with 2 workers on 16 usable cores; the workers are 95% busy.",
                 "Set num_workers=8 (and persistent_workers=True).",
                 "loader = DataLoader(dataset, batch_size=64, shuffle=True,\n                    num_workers=8, persistent_workers=True, pin_memory=True)",
                 (Evidence("data wait share", "70%", "> 20%", "input.data_wait_share"),
                  Evidence("workers", "2", "< usable cores (16)"),
                  Evidence("worker CPU busy", "95%", "> 80%")), 2.9, 0.16),
    )
    verdict = Verdict(category="input", headline="The GPU waits for data: 70% of each training step is spent waiting for the DataLoader.",
                      step_time=0.25, steps_per_second=4.0, samples_per_second=256.0,
                      breakdown={"input": 0.7, "compute": 0.26, "host": 0.04},
                      primary_finding="dataloader-too-few-workers")
    return _diagnosis(input_bound_record(), verdict, findings, rules_evaluated=30)


def compute_bound_diagnosis() -> Diagnosis:
    f = _finding("amp-not-used", "compute", "warning", "Mixed precision is not used",
                 "All matmul/conv time runs in fp32 on a GPU with bf16 tensor cores.",
                 "Wrap the forward pass in torch.autocast('cuda', dtype=torch.bfloat16).",
                 "with torch.autocast('cuda', dtype=torch.bfloat16):\n    loss = criterion(model(x), y)",
                 (Evidence("fp32 share of matmul/conv", "100%", "> 50%"),), 1.8, 0.12)
    f = replace(f, verification=Verification(status="measured", speedup=1.74, low=1.69, high=1.8, n=5))
    verdict = Verdict(category="compute", headline="The GPU is busy: 97% of each step is compute on the device.",
                      step_time=0.27, steps_per_second=3.7, samples_per_second=237.0,
                      breakdown={"compute": 0.95, "input": 0.01, "host": 0.04})
    return _diagnosis(compute_bound_record(), verdict, (f,), rules_evaluated=30)


def no_gpu_diagnosis() -> Diagnosis:
    verdict = Verdict(category="compute", headline="The CPU computes the model: each step is 98% forward, backward and optimizer.",
                      step_time=0.32, steps_per_second=3.1, samples_per_second=200.0, breakdown={"compute": 0.98})
    return _diagnosis(no_gpu_record(), verdict, (), rules_evaluated=30)


def crashed_diagnosis() -> Diagnosis:
    verdict = Verdict(category="unknown", headline="No step was measured: the script failed before its first training step.")
    return _diagnosis(crashed_record(), verdict, rules_evaluated=30)


def xss_diagnosis() -> Diagnosis:
    f = _finding("item-sync-in-loop", "sync", "warning", f"title {XSS}", f"message {XSS}", f"advice {XSS}",
                 f"print('{XSS}')</script>", (Evidence(f"label {XSS}", f"value {XSS}", f"threshold {XSS}"),), 1.1, 0.01)
    return Diagnosis(verdict=Verdict(category="sync", headline=f"headline {XSS}"), findings=(f,),
                     rule_errors=(f"rules/bad.toml:1: {XSS}",))


CASES = {
    "input_bound": (input_bound_record, input_bound_diagnosis),
    "compute_bound": (compute_bound_record, compute_bound_diagnosis),
    "crashed": (crashed_record, crashed_diagnosis),
    "no_gpu": (no_gpu_record, no_gpu_diagnosis),
}
