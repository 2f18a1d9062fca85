"""For every rule: a record that must trigger it and one that must not (pylint's bad/good).

Each ``good`` record is the ``bad`` one with the user's fix applied, or with
the evidence just short of the rule's threshold, so that the pair shows what
the rule looks at. Records are fakes of hardware built in ``records.py``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable

from trainprobe.record import ModuleTime, Padding, RunRecord, UnoptimizedGrads

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import recorded  # noqa: E402  (tests/recorded.py: recorded data, read once per session)

from .records import (GIB, MIB, cpu_record, gpu_record, with_blocking_copies, with_compute, with_cpu_wait,
                      with_env, with_gpu, with_hotspots, with_kernel_time,
                      with_memory, with_samples_per_step,
                      with_host, with_loader, with_model, with_optimizer, with_outcome,
                      with_profiler, with_settings, with_steps, with_workers)

__all__ = ["RuleCase", "CASES", "CPU_CASES"]


@dataclass(frozen=True)
class RuleCase:
    bad: Callable[[], RunRecord]
    good: Callable[[], RunRecord]
    severity: str  # the bad record's expected severity


def _starved_gpu(num_workers: int) -> RunRecord:
    """The GPU run, data-starved: 64% of a 0.139 s step waiting, 8 cores usable."""
    rec = with_env(gpu_record(), usable_cores=8, logical_cores=8)
    rec = with_loader(rec, num_workers=num_workers, persistent_workers=num_workers > 0,
                      prefetch_factor=2 if num_workers else None)
    return with_steps(rec, data_wait=0.089)


def _thin_products(samples: int) -> RunRecord:
    per_sample = 2e9 / 16
    rec = with_samples_per_step(cpu_record(), samples)
    return with_compute(rec, flops=per_sample * samples * (16 / samples), samples=samples, peak=200e9)


def _bf16_cpu(bf16_peak: float) -> RunRecord:
    return with_compute(cpu_record(), flops=4e9, samples=64, peak=200e9, other_peaks={"bf16": bf16_peak})


def _bf16_autocast_cpu(bf16_peak: float) -> RunRecord:
    """The CPU run's training forwards under bf16 autocast, its counted products in bf16."""
    rec = with_compute(cpu_record(), flops=4e9, samples=64, peak=bf16_peak, dtype="bf16",
                       other_peaks={"fp32": 200e9})
    return with_settings(rec, autocast_forwards=23, autocast_device="cpu", autocast_dtype="bfloat16")


def _fusable(compiled: bool) -> RunRecord:
    kinds = {"conv": 0.040, "matmul": 0.004, "elementwise": 0.030, "normalization": 0.016, "reduction": 0.004}
    rec = with_profiler(cpu_record(), op_kinds=kinds, memory_bound_share=0.5)
    return with_settings(rec, compiled=compiled)


def _conv_heavy(channels_last: bool) -> RunRecord:
    kinds = {"conv": 0.070, "matmul": 0.004, "elementwise": 0.012, "normalization": 0.008, "reduction": 0.002}
    return with_model(with_profiler(cpu_record(), op_kinds=kinds), channels_last=channels_last)


def _too_few_good() -> RunRecord:
    rec = _starved_gpu(6)  # the suggested count, still waiting: other rules' business
    return rec


def _workers_busy(rec: RunRecord, category: str, share: float, cpu: float) -> RunRecord:
    rec = with_workers(rec, rec.settings.dataloaders[0].num_workers, cpu)
    return with_hotspots(rec, worker_categories={category: share, "collate": 0.05})


def _decode_bad() -> RunRecord:
    return _workers_busy(_starved_gpu(6), "decode", 0.7, 98.0)


def _decode_good() -> RunRecord:
    return _workers_busy(_starved_gpu(6), "transform", 0.7, 98.0)


def _augment_bad() -> RunRecord:
    return _workers_busy(_starved_gpu(6), "transform", 0.65, 95.0)


def _augment_good() -> RunRecord:
    return _workers_busy(_starved_gpu(6), "transform", 0.25, 95.0)


def _storage_bad() -> RunRecord:
    rec = _workers_busy(_starved_gpu(6), "io", 0.8, 15.0)
    return with_host(rec, iowait_percent=35.0, disk_read_bps=40e6)


def _storage_good() -> RunRecord:  # same wait, but workers are CPU-bound: not storage
    rec = _workers_busy(_starved_gpu(6), "decode", 0.6, 97.0)
    return with_host(rec, iowait_percent=1.0)


def waiting_workers(read_share: float, machine_busy: float = 30.0) -> RunRecord:
    """Workers that spend 5 s each in fetch but 0.2 s on a CPU, mostly in time.sleep, with no I/O wait
    (as over NFS, or waiting on a service): storage when ``read_share`` of their time reads files, else
    something else; on a machine ``machine_busy`` percent busy."""
    from dataclasses import replace
    from trainprobe.record import WorkerStats
    rec = with_host(with_workers(_starved_gpu(6), 6, 5.0), iowait_percent=0.0, cpu_percent=machine_busy)
    stats = tuple(WorkerStats(pid=400 + i, loader_id=0, worker_id=i, batches=40, fetch=5.0) for i in range(6))
    return with_hotspots(replace(rec, workers=stats),
                         worker_categories={"sleep": 0.85 - read_share, "io": read_share, "python": 0.15})


def _prefetch(cpu: float, every: int = 8) -> RunRecord:
    """Every ``every``-th step waits 90 ms for its batch although 8 workers keep up on average."""
    rec = with_stalls(with_steps(gpu_record(), data_wait=0.001), every=every, stall=0.09)
    rec = replace_workers_fetch(rec, fetch=0.08)  # 0.08 s per batch / 0.05 s busy = 1.6 needed
    return with_workers(rec, 8, cpu)


def with_stalls(rec: RunRecord, every: int, stall: float) -> RunRecord:
    """Every ``every``-th step waits ``stall`` seconds for its batch (an empty queue)."""
    from dataclasses import replace
    steps = tuple(
        replace(s, data_wait=stall, duration=s.duration - s.data_wait + stall) if i % every == 0 else s
        for i, s in enumerate(rec.steps))
    return replace(rec, steps=steps)


def replace_workers_fetch(rec: RunRecord, fetch: float) -> RunRecord:
    from dataclasses import replace
    from trainprobe.record import WorkerStats
    stats = tuple(WorkerStats(pid=300 + i, loader_id=0, worker_id=i, batches=10,
                              fetch=fetch * 10, getitem=fetch * 9, collate=fetch)
                  for i in range(8))
    return replace(rec, workers=stats)


def handoff(receive: float, fetch: float = 0.0003) -> RunRecord:
    """Batches of 4 in-memory images from 2 workers on a CPU (the CIFAR-10 tutorial's loop): a
    2.8 ms step waits 1.2 ms for its batch, ``receive`` of it receiving the batch from a worker,
    which made it in ``fetch``."""
    from dataclasses import replace
    rec = with_loader(cpu_record(), num_workers=2, batch_size=4, persistent_workers=False)
    rec = with_steps(rec, duration=0.0028, data_wait=0.0012, forward=0.0006, backward=0.0006,
                     optimizer=0.0002, zero_grad=0.0)
    rec = replace(rec, steps=tuple(replace(s, samples=4, data_receive=receive, data_wait_cpu=receive * 0.8)
                                   for s in rec.steps))
    return with_workers(replace_workers_fetch(rec, fetch), 2, 20.0)


def _restart(persistent: bool) -> RunRecord:
    rec = with_loader(cpu_record(), num_workers=1, persistent_workers=persistent,
                      start_method="spawn", iterations=4, batches=23, dataset_len=None)
    wait = 0.0 if persistent else 2.5
    return with_steps(rec, epoch_every=6, epoch_wait=wait)


def _whole_set(batches: int) -> RunRecord:
    """A loader whose one batch is the whole dataset, taken again for each of 100 steps, in the main process
    (omarsar's logistic regression); the good record's dataset is two batches, read in epochs."""
    rec = with_loader(cpu_record(), num_workers=0, prefetch_factor=None, persistent_workers=False,
                      batch_size=162, dataset_len=162 * batches, iterations=100 // batches, batches=100)
    return with_steps(rec, data_wait=0.08, other=0.002)


def _pin(pin: bool) -> RunRecord:
    rec = with_loader(gpu_record(), pin_memory=pin)
    rec = with_blocking_copies(with_steps(rec, h2d=0.006, duration=0.0555), 0.006)
    return with_profiler(rec, h2d_pageable_bytes_per_step=0 if pin else 788_480 * 24)


def _host(other: float) -> RunRecord:
    rec = with_steps(cpu_record(), other=other)
    return with_hotspots(rec, window=1.0, main=(_func("train.py", 42, "log_metrics", 0.3),))


def _func(file: str, line: int, name: str, self_time: float):
    from trainprobe.record import FuncStat
    return FuncStat(file=file, line=line, function=name, calls=10, self_time=self_time,
                    cumulative=self_time, user_code=True, category="python")


def _item_gpu(sync_time: float) -> RunRecord:
    rec = with_steps(gpu_record(), other=0.002 + sync_time)
    syncs = {"item/tolist": 2.0, "item/tolist (optimizer)": 8.0}  # Adam's own step counters
    return with_profiler(rec, syncs_per_step=10, sync_calls=syncs, sync_time_per_step=sync_time)


def _item_cpu(calls: float) -> RunRecord:
    return with_profiler(cpu_record(), syncs_per_step=calls,
                         sync_calls={"item/tolist": calls, "item/tolist (optimizer)": 8.0})


def _creations(rec: RunRecord, per_step: float, copies: float, context: str = "loop") -> RunRecord:
    """``per_step`` torch.randn(...) calls on the CPU, made by the loop's own code at train.py:57 (or by
    the dataset's __getitem__: ``context="data"``); ``copies`` H2D copies, the ones beyond the batch's two
    from pageable memory (noise and weights made on the CPU)."""
    from trainprobe.record import CreationSite, OpStat
    ops = (OpStat(name="aten::lift_fresh", calls=int(per_step * 5), self_cpu=1e-4),) \
        if per_step else ()
    extra = max(0.0, copies - 2) * 256 * 3 * 32 * 32 * 4  # float32 noise the batch's size
    rec = with_profiler(rec, top_cpu_ops=ops, h2d_copies_per_step=copies,
                        h2d_pageable_bytes_per_step=extra,
                        h2d_bytes_per_step=(rec.profiler.h2d_bytes_per_step or 0) + extra)
    sites = (CreationSite(function="torch.randn", at="/work/train.py:57",
                          caller="__getitem__" if context == "data" else "train", calls=int(per_step * 10),
                          context=context, on_device=False),) if per_step else ()
    return with_hotspots(rec, steps=10, window=0.5, creations=sites, phase_seconds={"loop": 0.02, "model": 0.3})


def _tokenizing(kind: str) -> RunRecord:
    """The CPU run with num_workers=0 and 30% of its step waiting for batches, 80% of whose making went to
    ``kind`` work in the dataset's __getitem__ (a tokenizer: "tokenize")."""
    from trainprobe.record import TimePart
    rec = with_loader(with_steps(cpu_record(), data_wait=0.05), num_workers=0, persistent_workers=False,
                      prefetch_factor=None, dataset_type="__main__.Reviews")
    parts = (TimePart(label="__call__() (transformers/tokenization_utils_base.py)", function="__call__",
                      file="/site-packages/transformers/tokenization_utils_base.py", line=2800,
                      caller="__getitem__() /work/train.py:44", owner="library", area=kind, seconds=0.4, calls=640),
             TimePart(label="default_collate() (torch/utils/data/_utils/collate.py)", function="default_collate",
                      owner="torch", area="collate", seconds=0.1, calls=10))
    return with_hotspots(rec, steps=10, window=1.5, data_parts=parts, phase_seconds={"data": 0.5, "model": 1.0})


def _oversubscribed(main_wait: float, worker_cpu: float = 55.0, worker_wait: float = 0.3) -> RunRecord:
    """2 cores: the training process (4 threads) gets 0.9 of a core and its threads wait
    ``main_wait`` cores' worth in the run queue; 2 workers use ``worker_cpu`` percent each."""
    rec = with_settings(cpu_record(), torch_threads=4)
    rec = with_loader(rec, num_workers=2)
    rec = with_host(rec, cpu_percent=99.0)
    rec = with_workers(rec, 2, worker_cpu)
    rec = replace_main_cpu(rec, 90.0)
    return with_cpu_wait(rec, main_wait, worker_wait)


def _thread_arithmetic_alone() -> RunRecord:
    """The false alarm seen on real scripts: 4 threads and 2 workers on 2 cores, but the workers
    use 0.05 cores and the training process gets 97% of the CPU it wants."""
    rec = _oversubscribed(0.06, worker_cpu=5.0, worker_wait=0.0)
    return with_host(replace_main_cpu(rec, 190.0), cpu_percent=98.0)


def _outside_load(outside_cores: float, main_wait: float) -> RunRecord:
    """2 cores; the training process uses 0.9 of one; other programs use ``outside_cores``."""
    rec = with_env(cpu_record(), usable_cores=2, logical_cores=2)
    rec = with_workers(replace_main_cpu(rec, 90.0), 0, 0.0)
    rec = with_host(rec, cpu_percent=(0.9 + outside_cores) / 2 * 100)
    return with_cpu_wait(rec, main_wait)


def replace_main_cpu(rec: RunRecord, cpu_percent: float) -> RunRecord:
    from dataclasses import replace
    procs = tuple(replace(p, cpu_percent=(cpu_percent,) * len(p.t)) if p.role == "main" else p
                  for p in rec.samples.processes)
    return replace(rec, samples=replace(rec.samples, processes=procs))


def _anomaly(on: bool) -> RunRecord:
    rec = with_settings(cpu_record(), anomaly_detection=on)
    return with_steps(rec, backward=0.14 if on else 0.06)


def _fused(fused: bool) -> RunRecord:
    rec = with_optimizer(gpu_record(), fused=fused, foreach=None)
    return with_steps(rec, optimizer=0.009)


def _launch(compiled: bool, idle: float) -> RunRecord:
    rec = with_settings(gpu_record(), compiled=compiled)
    rec = with_steps(rec, forward=0.012, backward=0.02, optimizer=0.004, gpu_busy=0.012)
    rec = with_profiler(rec, cpu_total=0.2, cuda_total=0.06, launches_per_step=2400,
                        mean_kernel_time=5e-6, gpu_idle_share=idle)
    return with_gpu(rec, sm_util=35.0 if idle > 0.3 else 95.0)


def _tiny_ops_cpu(op_time: float) -> RunRecord:
    """A batch-of-4 MLP on the CPU: 430 ops per 2.6 ms step, ``op_time`` each. Tiny ops (under
    10 µs) spend most of the step in their calls; large ones leave little outside them."""
    from dataclasses import replace
    tiny = op_time < 10e-6
    rec = with_loader(cpu_record(), batch_size=4)
    rec = with_steps(rec, data_wait=0.0001, forward=0.0009, backward=0.0011, optimizer=0.0004,
                     other=0.0001, zero_grad=0.0)
    last = len(rec.steps) - 5  # the torch.profiler window
    rec = replace(rec, steps=tuple(replace(s, phase="profiled") if s.index >= last else s for s in rec.steps))
    # Ops' own time in each phase: most of it for large ops, half of it for tiny ones.
    part = 0.5 if tiny else 0.95
    return with_profiler(rec, ops_per_step=430, toplevel_ops_per_step=27,
                         cpu_total=5 * 430 * op_time, mean_toplevel_op_time=op_time * 10,
                         small_op_time_share=0.9 if tiny else 0.1, cheap_op_time=1e-6,
                         op_time_by_phase={"forward": 0.0009 * part, "backward": 0.0011 * part,
                                           "optimizer": 0.0004 * part})


def _tiny_batch_cpu(samples: int) -> RunRecord:
    """A small CNN on the CPU, 250 ops per 4.5 ms step; its ops' own time is 3 ms, the rest of the
    forward, backward and optimizer (Python, module calls, autograd) 1.1 ms: the fixed cost."""
    from dataclasses import replace
    rec = with_loader(cpu_record(), batch_size=samples)
    rec = with_steps(rec, data_wait=0.0002, forward=0.0016, backward=0.002, optimizer=0.0005,
                     other=0.0002, zero_grad=0.0)
    rec = replace_samples(rec, samples)
    last = len(rec.steps) - 5  # the torch.profiler window
    rec = replace(rec, steps=tuple(replace(s, phase="profiled") if s.index >= last else s for s in rec.steps))
    return with_profiler(rec, ops_per_step=250, cheap_op_time=1e-6, cpu_total=5 * 0.0042,
                         op_time_by_phase={"forward": 0.0011, "backward": 0.0016, "optimizer": 0.0003,
                                           "data_wait": 0.0001})


def replace_samples(rec: RunRecord, samples: int) -> RunRecord:
    from dataclasses import replace
    return replace(rec, steps=tuple(replace(s, samples=samples) for s in rec.steps))


def _fp32(rec: RunRecord, share: float) -> RunRecord:
    return with_profiler(rec, fp32_matmul_conv_share=share)


def _no_amp() -> RunRecord:
    rec = with_settings(gpu_record(), autocast_forwards=0, autocast_dtype=None,
                        autocast_device=None)
    return _fp32(rec, 0.65)


def _no_tf32(precision: str) -> RunRecord:
    rec = with_settings(_no_amp(), float32_matmul_precision=precision,
                        cuda_matmul_allow_tf32=precision != "highest")
    return rec


def _trace(name: str) -> RunRecord:
    """A real GPU trace by others (tests/data/traces/), read as `trainprobe trace` reads it."""
    return recorded.trace_record(name)


def _tensor_cores(share: float) -> RunRecord:
    """The H100 run with a device timeline whose fp32 matmuls run on tensor cores (TF32) or not."""
    busy = 0.046
    return with_profiler(
        gpu_record(), gpu_busy_per_step=busy, gpu_idle_by_cause={"host": 0.004},
        device_time_by_class={"compute": busy}, kernel_time_by_class={"compute": busy},
        gpu_idle_at_step_boundaries=0.001, matmul_conv_share=0.6, fp32_matmul_conv_share=0.6,
        tensor_core_share=share, half_precision_share=0.0, median_kernel_time=40e-6)


def _small_batch(util: float, mem_gib: float) -> RunRecord:
    rec = with_loader(gpu_record(), batch_size=16)
    return with_gpu(rec, sm_util=util, mem_used=int(mem_gib * GIB),
                    process_mem_used=int(mem_gib * GIB) - GIB)


def _model_on_cpu(gpu_visible: bool) -> RunRecord:
    rec = cpu_record()
    if gpu_visible:
        rec = with_env(rec, cuda_available=True, gpu_count=1)
        rec = with_settings(rec, cuda_available=True)
    return rec


def _throttle(reasons: int, clock: float) -> RunRecord:
    return with_gpu(gpu_record(), throttle_reasons=reasons, sm_clock_mhz=clock,
                    temperature_c=91.0)


def _power(power: float) -> RunRecord:
    return with_gpu(gpu_record(), power_w=power)


def _memory(mem_gib: float) -> RunRecord:
    return with_gpu(gpu_record(), mem_used=int(mem_gib * GIB))


def _oom_no_steps() -> RunRecord:
    from dataclasses import replace
    rec = replace(gpu_record(), steps=())
    return with_outcome(rec, status="failed", oom=True,
                        exception_type="torch.OutOfMemoryError")


def counted_cpu_step(**census) -> RunRecord:
    """The CPU run's counted step (batch 64, SGD with momentum): 6 MiB persist (parameters, gradients, momentum),
    the step peaks at 100 MiB in the forward; on a machine with 20 GiB free of 24 GiB RAM, the process itself
    taking 500 MiB. ``census`` changes any MemoryCensus field."""
    fields = dict(samples=64, parameters=2 * MIB, parameters_by_dtype={"fp32": 2 * MIB}, buffers=0,
                  gradients=2 * MIB, optimizer_state=2 * MIB, at_step_start=6 * MIB, step_peak=100 * MIB,
                  peak_phase="backward", activation_peak=100 * MIB, saved_activations=80 * MIB,
                  retained_per_step=0, input_shape="64x3x32x32", input_elements=64 * 3 * 32 * 32,
                  resident_at_start=506 * MIB, data_at_start=800 * MIB, address_space_at_start=3 * GIB)
    fields.update(census)
    return with_memory(cpu_record(), fields, limit=24 * GIB, limit_source="RAM", free_at_start=20 * GIB)


def _checkpointed(recomputed_per_backward: int) -> RunRecord:
    record = with_steps(counted_cpu_step(), forward=0.04, backward=0.12)
    return with_settings(record, recomputed_forwards=recomputed_per_backward * record.settings.backward_calls)


def _padded(lengths: tuple[int, ...], width: int) -> RunRecord:
    """Eight batches of rows of these real lengths, padded to ``width``, into a 60 ms forward and backward
    of a 64 ms step: what the probe's tally (probe/padding.py) keeps of them."""
    rows = len(lengths)
    padding = Padding(batches=8, slots=8 * rows * width, tokens=8 * sum(lengths), longest=8 * rows * max(lengths),
                      length=width, mask="attention_mask", set_at="train.py:12")
    return with_settings(with_steps(cpu_record(), forward=0.02, backward=0.04, optimizer=0.004, duration=0.064),
                         padding=padding)


def _math_attention(seconds: float, products: float) -> RunRecord:
    """A 100 ms step whose forward (60 ms) spends ``seconds`` on scaled_dot_product_attention's math path,
    ``products`` of it in its matrix products."""
    record = with_steps(cpu_record(), forward=0.06, backward=0.03, optimizer=0.01, duration=0.1)
    return with_profiler(record, attention_math_time_per_step=seconds, attention_math_products_per_step=products)


def _steps_time() -> float:
    return sum(step.duration for step in cpu_record().steps if not step.validation)


def _weights_made(seconds: float) -> RunRecord:
    """nn.MultiheadAttention's training calls that made their weights, two a step, ``seconds`` of them in all."""
    record = cpu_record()
    calls = 2 * sum(1 for step in record.steps if not step.validation)
    return with_settings(record, attention_weights_calls=calls, attention_weights_seconds=seconds,
                         attention_weights_at="train.py:33")


def _loss_network(backward: float) -> RunRecord:
    """A perceptual loss's feature network (90,000 weights) left trainable outside the optimizer, whose backward
    took ``backward`` seconds a step in the profiled window."""
    found = UnoptimizedGrads(params=90_000, tensors=8, optimized_params=20_000, children=("features",),
                             modules={"features (torch.nn.modules.container.Sequential)": 90000},
                             model_built_at="train.py:40")
    record = with_settings(cpu_record(), unoptimized_grads=found)
    return with_profiler(record, module_times=(ModuleTime(name="features", forward_per_step=backward / 2,
                                                          backward_per_step=backward),))


def _leak(retained: int, storages: int) -> RunRecord:
    """Each step leaves ``retained`` bytes in ``storages`` tensors, made in the forward at the model's output
    line, called from the loop."""
    return counted_cpu_step(retained_per_step=retained, retained_storages=storages,
                            retained_sites={"train.py:31": retained}, retained_callers={"train.py:88": retained},
                            retained_phases={"forward": retained})


def _job(name: str):
    """A recorded 2-rank torchrun job (tests/data/jobs/NAME), as a job record, one object per session."""
    return recorded.job(name)


def _two_gpus(used: int, dp: bool = False) -> RunRecord:
    rec = with_env(gpu_record(), gpu_count=2)
    devices = tuple(f"cuda:{i}" for i in range(used))
    rec = with_settings(rec, devices_used=devices, data_parallel=dp)
    return with_model(rec, wrapper="DataParallel" if dp else None)


CASES: dict[str, RuleCase] = {
    # Real traces: rank 3 of 8 leaves 19% of its step to NCCL alone; rank 1 of 2 (V100) hides most.
    "exposed-communication": RuleCase(lambda: _trace("a100_rank3_of8"), lambda: _trace("v100_rank1_of2"),
                                      "warning"),
    # ResNet-50 with 4 workers idles 7% of its step at the boundaries; the single-rank V100 run 1%.
    "gpu-idle-between-steps": RuleCase(lambda: _trace("resnet50_v100_workers4"),
                                       lambda: _trace("v100_single_rank"), "info"),
    "low-tensor-core-use": RuleCase(lambda: _tensor_cores(0.1), lambda: _tensor_cores(0.9), "warning"),
    # Rank 0 of 16 blocks its host in copies to pageable memory while the GPU idles 42% of the step;
    # rank 1 of 2 makes the same copies, but its GPU stays busy through them.
    "blocking-pageable-copies": RuleCase(lambda: _trace("a100_rank0_of16"), lambda: _trace("v100_rank1_of2"),
                                         "critical"),
    # The A100 DDP run idles 76% of its step waiting for the host's launches of 16 µs kernels; the V100
    # single rank keeps its GPU busy with 30 µs kernels.
    "tiny-kernels-launch-bound": RuleCase(lambda: _trace("a100_ddp_rank0_of2"), lambda: _trace("v100_single_rank"),
                                          "critical"),
    "dataloader-too-few-workers": RuleCase(lambda: _starved_gpu(0), _too_few_good, "critical"),
    "dataloader-pin-memory-off": RuleCase(lambda: _pin(False), lambda: _pin(True), "warning"),
    "dataloader-whole-set-remade-each-step": RuleCase(lambda: _whole_set(1), lambda: _whole_set(2), "critical"),
    "dataloader-workers-restart-each-epoch": RuleCase(
        lambda: _restart(False), lambda: _restart(True), "warning"),
    "dataloader-prefetch-starved": RuleCase(
        lambda: _prefetch(40.0), lambda: _prefetch(95.0), "warning"),
    "workers-decode-bound": RuleCase(_decode_bad, _decode_good, "warning"),
    "workers-augment-bound": RuleCase(_augment_bad, _augment_good, "warning"),
    "storage-bound-input": RuleCase(_storage_bad, _storage_good, "critical"),
    "dataloader-workers-waiting": RuleCase(lambda: waiting_workers(0.0), lambda: waiting_workers(0.05), "critical"),
    # Receiving each batch of 4 takes the loop 1 ms while a worker makes it in 0.3 ms; with a
    # quicker handoff (0.2 ms) the workers pay for themselves.
    "worker-handoff-outweighs-batch": RuleCase(lambda: handoff(0.001), lambda: handoff(0.0002), "warning"),
    "host-overhead-in-loop": RuleCase(lambda: _host(0.06), lambda: _host(0.008), "warning"),
    "item-sync-in-loop": RuleCase(lambda: _item_gpu(0.01), lambda: _item_gpu(0.0005),
                                  "warning"),
    # Copies long enough (8 ms of a 57.5 ms step) that the fix recovers over 5% of the step: a smaller
    # gain would make the finding info (engine/evaluate.py SIGNIFICANT_GAIN).
    "tensor-created-on-cpu-in-loop": RuleCase(
        lambda: with_blocking_copies(with_steps(_creations(gpu_record(), 1, 4), h2d=0.008), 0.008),
        lambda: with_blocking_copies(with_steps(_creations(gpu_record(), 1, 2), h2d=0.008), 0.008),
        "warning"),
    "input-tokenize-bound": RuleCase(lambda: _tokenizing("tokenize"), lambda: _tokenizing("python"), "warning"),
    "cpu-oversubscription": RuleCase(lambda: _oversubscribed(0.9), _thread_arithmetic_alone, "warning"),
    "outside-cpu-load": RuleCase(lambda: _outside_load(1.0, 0.4), lambda: _outside_load(0.1, 0.02), "warning"),
    "debug-api-enabled": RuleCase(lambda: _anomaly(True), lambda: _anomaly(False), "warning"),
    "validation-without-no-grad": RuleCase(
        lambda: with_model(cpu_record(), eval_calls=10, eval_calls_with_grad=10),
        lambda: with_model(cpu_record(), eval_calls=10, eval_calls_with_grad=0), "warning"),
    # Checkpointing on (4 blocks recomputed per backward): a 120 ms backward on a 40 ms forward, 40 ms beyond the
    # 80 ms twice the forward would take, with 100 MiB of activations in 20 GiB: against no checkpointing.
    # A loss network's 90,000 weights outside the optimizer, its backward 50 ms of a 120 ms step: against the
    # same network frozen (no weight outside an optimizer has a gradient).
    "gradients-for-unoptimized-weights": RuleCase(lambda: _loss_network(0.05), cpu_record, "warning"),
    "checkpointing-with-room": RuleCase(lambda: _checkpointed(4), lambda: _checkpointed(0), "info"),
    # 40% of the training process's CPU in the kernel, 226,000 fresh pages a second (27,000 a 0.12 s step: 106 MiB,
    # 3 µs of kernel time each): against the same run with jemalloc preloaded, which keeps them (2% kernel time).
    "allocator-page-churn": RuleCase(lambda: with_kernel_time(cpu_record(), 0.40, 226_000),
                                     lambda: with_kernel_time(cpu_record(), 0.02, 2_000, preload="libjemalloc.so.2"),
                                     "warning"),
    # Rows of 20-60 tokens padded to 256: a batch padded to its longest keeps 60 of 256 slots. Against rows
    # padded to 64 (a batch's longest, 60, keeps 94% of them).
    "fixed-length-padding": RuleCase(lambda: _padded((20, 35, 60, 41), 256), lambda: _padded((20, 35, 60, 41), 64),
                                     "warning"),
    # 40 ms of a 100 ms step on the math path, 5 ms of it products: against 4 ms, 1 ms of it products.
    "attention-math-path": RuleCase(lambda: _math_attention(0.04, 0.005), lambda: _math_attention(0.004, 0.001),
                                    "warning"),
    # The calls take half the steps' time, against a twentieth.
    "attention-weights-returned": RuleCase(lambda: _weights_made(0.5 * _steps_time()),
                                           lambda: _weights_made(0.05 * _steps_time()), "info"),
    "zero-grad-without-set-to-none": RuleCase(
        lambda: with_settings(cpu_record(), zero_grad_set_to_none_false=23),
        lambda: with_settings(cpu_record(), zero_grad_set_to_none_false=0), "info"),
    "adam-with-l2-weight-decay": RuleCase(
        lambda: with_optimizer(cpu_record(), type="torch.optim.adam.Adam", weight_decay=1e-4),
        lambda: with_optimizer(cpu_record(), type="torch.optim.adamw.AdamW",
                               weight_decay=1e-2), "info"),
    "optimizer-not-fused": RuleCase(lambda: _fused(False), lambda: _fused(True), "warning"),
    # A for-loop SGD update of 40 ms in a 148 ms step (27%), against the usual 12 ms (10%).
    "optimizer-share-high": RuleCase(lambda: with_steps(cpu_record(), optimizer=0.04), cpu_record, "warning"),
    # 2 GFLOP a step on 16 samples at 133 samples/s: 17 GFLOP/s of a 200 GFLOP/s peak (8%); the same MFU
    # on batches of 256 is not a small batch's doing.
    "low-mfu-small-batch": RuleCase(lambda: _thin_products(16), lambda: _thin_products(256), "info"),
    # fp32 products at 60% of the op time on a CPU measured at 440 bf16 GFLOP/s against 200 in fp32; the same
    # CPU without fast bf16 (a conversion-bound 160 GFLOP/s) gets nothing.
    "cpu-bf16-not-used": RuleCase(lambda: _bf16_cpu(440e9), lambda: _bf16_cpu(160e9), "info"),
    # bf16 autocast on a CPU whose bf16 products run at 10% of its fp32 rate: against a CPU with AMX (2.2x).
    "cpu-bf16-slower": RuleCase(lambda: _bf16_autocast_cpu(20e9), lambda: _bf16_autocast_cpu(440e9), "warning"),
    # Half the op time in element-wise ops and norms, the model not compiled; the same model compiled.
    # info on a CPU: there the memory-bound share does not predict compile's gain (the rule's note)
    "compile-would-fuse": RuleCase(lambda: _fusable(False), lambda: _fusable(True), "info"),
    # Convolutions at 73% of the compute ops' time on a CPU, the weights channels-first; the same in channels_last.
    "cpu-channels-last-not-used": RuleCase(lambda: _conv_heavy(False), lambda: _conv_heavy(True), "info"),
    "no-lr-schedule": RuleCase(lambda: with_settings(cpu_record(), schedulers=()),
                               cpu_record, "info"),
    "pageable-host-to-device-copies": RuleCase(
        lambda: with_profiler(with_blocking_copies(with_steps(gpu_record(), h2d=0.008), 0.008),
                              h2d_pageable_bytes_per_step=700_000 * 3,
                              h2d_bytes_per_step=788_480 * 3),
        lambda: with_profiler(with_blocking_copies(with_steps(gpu_record(), h2d=0.008), 0.008),
                              h2d_pageable_bytes_per_step=0), "warning"),
    # The same fixed cost on batches of 512: past max_info_batch (from 17 to 256 it is information).
    "small-batch-overhead": RuleCase(lambda: _tiny_batch_cpu(4), lambda: _tiny_batch_cpu(512), "warning"),
    "launch-bound-small-ops": RuleCase(lambda: _launch(False, 0.55),
                                       lambda: _launch(False, 0.05), "warning"),
    "amp-not-used": RuleCase(_no_amp, gpu_record, "warning"),
    "tf32-disabled": RuleCase(lambda: _no_tf32("highest"), lambda: _no_tf32("high"), "warning"),
    "cudnn-benchmark-off": RuleCase(
        lambda: with_settings(gpu_record(), cudnn_benchmark=False),
        lambda: with_model(with_settings(gpu_record(), cudnn_benchmark=False),
                           input_shapes=("(256, 3, 32, 32)", "(80, 3, 32, 32)",
                                         "(256, 3, 48, 48)")), "warning"),
    "channels-last-under-amp": RuleCase(lambda: with_model(gpu_record(), channels_last=False),
                                        gpu_record, "warning"),
    "small-batch-underused-gpu": RuleCase(lambda: _small_batch(20.0, 3.0),
                                          lambda: _small_batch(90.0, 3.0), "warning"),
    "model-on-cpu-with-gpu-available": RuleCase(lambda: _model_on_cpu(True),
                                                lambda: _model_on_cpu(False), "critical"),
    "gpu-throttling": RuleCase(lambda: _throttle(0x20, 1400.0), lambda: _throttle(0, 1980.0),
                               "warning"),
    "low-power-at-high-utilization": RuleCase(lambda: _power(180.0), lambda: _power(560.0),
                                              "info"),
    "memory-near-limit": RuleCase(_oom_no_steps, lambda: _memory(60.0), "critical"),
    # 8 MiB of logits kept every step (8% of the step's peak) against a loss tensor kept (4 bytes).
    "memory-grows-each-step": RuleCase(lambda: _leak(8 * MIB, 1), lambda: _leak(4, 1), "warning"),
    "data-parallel-instead-of-ddp": RuleCase(lambda: _two_gpus(2, dp=True),
                                             lambda: _two_gpus(1), "warning"),
    "single-gpu-of-many": RuleCase(lambda: _two_gpus(1), lambda: _two_gpus(2, dp=False),
                                   "warning"),
    # Real 2-rank gloo jobs (tests/data/jobs): rank 1 reads its batches 40 ms slower, and rank 0
    # waits 86% of its step for it; with find_unused_parameters the ranks wait for each other in turn.
    "straggler-rank": RuleCase(lambda: _job("slow_rank"), lambda: _job("find_unused"), "critical"),
    "work-on-rank-0-alone": RuleCase(lambda: _job("rank0_work"), lambda: _job("slow_rank"), "warning"),
    "ddp-find-unused-parameters": RuleCase(lambda: _job("find_unused"), lambda: _job("slow_rank"), "info"),
    "distributed-sampler-missing": RuleCase(lambda: _job("no_sampler"), lambda: _job("slow_rank"), "warning"),
}

# Rules with a second pattern on CPU-only runs: (bad, good, severity) for that pattern.
CPU_CASES: dict[str, RuleCase] = {
    "launch-bound-small-ops": RuleCase(lambda: _tiny_ops_cpu(5e-6), lambda: _tiny_ops_cpu(80e-6),
                                       "warning"),
}
