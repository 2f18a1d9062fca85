"""Input-pipeline facts: the training DataLoader, its workers and what they spend time on."""

from __future__ import annotations

import math
import statistics
from typing import Optional

from ..record import LoaderSettings, RunRecord
from ._stats import mean, ratio
from .window import in_window, steady_span, steady_steps

__all__ = ["FAMILY", "FACTS", "compute", "training_loader", "suggest_num_workers", "suggest_prefetch_factor",
           "with_suggested_workers", "WAITING_CPU_SHARE"]

FAMILY = "input"

FACTS = {
    "loader_count": ("count", "DataLoaders the script iterated over."),
    "num_workers": ("count", "num_workers of the training DataLoader."),
    "batch_size": ("count", "batch_size of the training DataLoader (None for custom batch samplers)."),
    "pin_memory": ("bool", "pin_memory of the training DataLoader."),
    "persistent_workers": ("bool", "persistent_workers of the training DataLoader."),
    "prefetch_factor": ("count", "prefetch_factor of the training DataLoader (None without workers)."),
    "start_method": ("text", "Worker start method: fork, spawn or forkserver."),
    "loader_iterations": ("count", "Iterators created on the training DataLoader (about the epochs)."),
    "batches_per_epoch": ("count", "Batches per iterator of the training DataLoader (len of it)."),
    "first_batch_wait": ("s", "Wait for the very first batch (worker start-up included)."),
    "suggested_num_workers": ("count", "num_workers trainprobe suggests from the usable cores and "
                              "the GPUs sharing them (see suggested_num_workers_reason)."),
    "suggested_num_workers_reason": ("text", "Why that number: the cores and processes it assumes, or "
                                     "that the batch-making waits (batch_making_cpu_share under "
                                     "30%): then workers_needed with half as many again for headroom, at "
                                     "most 16, whatever the cores."),
    "fetch_per_batch": ("s", "Seconds a worker (or the main process) spends making one batch: "
                        "__getitem__ for every sample plus collate."),
    "fetch_uncontended_per_batch": ("s", "Seconds making one batch takes on a core of its own: with "
                                    "workers, fetch_per_batch less the share of their wanted CPU time "
                                    "they spent waiting for a free core (worker_cpu_wait_share), a wait "
                                    "the loop would not pay making its batches itself with the workers "
                                    "gone; otherwise fetch_per_batch."),
    "workers_needed": ("count", "Workers needed to keep up: fetch_per_batch over the step time "
                       "without the data wait."),
    "worker_cpu_saturation": ("share", "Mean CPU use of busy DataLoader workers, 1.0 = each busy "
                              "worker uses a whole core (CPU-bound workers)."),
    "worker_cores_used": ("count", "Cores the DataLoader workers used together, on average."),
    "worker_fetch_cpu_share": ("share", "CPU seconds of the workers over their seconds in fetch: "
                               "near 1 they compute, low they wait (storage, network, or a "
                               "CPU taken by other processes)."),
    "suggested_prefetch_factor": ("count", "prefetch_factor whose queue (workers x factor batches, "
                                  "one consumed per mean steady step) outlasts twice the 90th-percentile "
                                  "stall; None without workers or stalls."),
    "worker_processes": ("count", "Worker processes seen by the sampler."),
    "worker_decode_share": ("share", "Share of worker time decoding (PIL/cv2 image decode)."),
    "worker_transform_share": ("share", "Share of worker time in transforms/augmentation."),
    "worker_io_share": ("share", "Share of worker time reading files."),
    "worker_sleep_share": ("share", "Share of worker time in time.sleep (waiting on nothing trainprobe measures)."),
    "worker_collate_share": ("share", "Share of worker time collating batches."),
    "input_decode_share": ("share", "Share of the time spent making batches that went to decoding images: "
                           "the workers' (worker_decode_share), or with num_workers=0 the main "
                           "process's decoding over its data wait in the cProfile window."),
    "input_transform_share": ("share", "The same for transforms and augmentation."),
    "input_io_share": ("share", "The same for file reads (worker_io_share with workers)."),
    "input_sleep_share": ("share", "The same for time.sleep (worker_sleep_share with workers)."),
    "input_blocked_share": ("share", "The same for waits the profile names: time.sleep and network calls "
                            "(sockets, SSL, http.client, urllib3, requests)."),
    "data_wait_cpu_share": ("share", "The training loop's CPU seconds while it waited for batches, over "
                            "that wait (its own thread, steady steps): near 1 it was making the batch "
                            "itself (num_workers=0) or taking it from a worker; low, it waited off the CPU "
                            "(for a worker, a sleep, the network, a lock, storage)."),
    "batch_receive_per_batch": ("s", "Seconds the training loop spent receiving each batch from a worker "
                                "(unpickling it and mapping its tensors' shared memory): the loop's side of "
                                "the worker handoff, paid once per batch whatever its size. None without "
                                "workers."),
    "batch_receive_share": ("share", "The loop's seconds receiving batches from workers over the mean "
                            "steady step."),
    "batch_making_cpu_share": ("share", "The share of the time spent making batches that was on a CPU: "
                               "the workers' (worker_fetch_cpu_share), or with num_workers=0 the loop's own "
                               "(data_wait_cpu_share). Low: making a batch waits (a remote call, a sleep, a "
                               "lock, storage), and workers that wait need no core of their own."),
    "torch_threads_with_workers": ("count", "On a CPU-only run, the intra-op threads the training process "
                                   "keeps beside suggested_num_workers busy workers: the usable cores they "
                                   "leave, at most torch_threads (None on a GPU run)."),
    "step_with_suggested_workers": ("s", "The steady step estimated with suggested_num_workers workers: "
                                    "the slower of the loop without its data wait (on a CPU-only run, with "
                                    "the model's math slowed to the cores the workers leave) and the "
                                    "workers making its batches."),
}


def training_loader(record: RunRecord) -> Optional[LoaderSettings]:
    """The loader that fed training: the first one used before a backward, else the busiest; none when
    the training steps fetched no DataLoader batch (batches made by hand, a loader only at an epoch's
    end: on an H200 a sample that indexes its batches on the device has one DataLoader, for validation,
    and its batch size and pin_memory were advised on as the training loader's)."""
    loaders = record.settings.dataloaders
    used = [d for d in loaders if d.used_in_training]
    if used:
        return used[0]
    training = [s for s in record.steps if not s.validation]
    # Steps inside an epoch tell; when every step starts one (epochs of one batch), all of them do.
    inner = [s for s in training if not s.epoch_start] or training
    if not any(s.batches for s in inner):
        return None
    return max(loaders, key=lambda d: d.batches, default=None)


_FEW_CORES = 4  # per training process: up to this many, one core is kept back for the process itself


def _cores_per_process(usable_cores: int, processes: int) -> int:
    return max(1, usable_cores // max(1, processes))


def suggest_num_workers(usable_cores: Optional[int], processes: int) -> tuple[Optional[int], str]:
    """A worker count from the cores one training process can use.

    One core stays with the training process itself; on machines with more
    than four cores per process a second one is left for the pin-memory thread
    and the system. More than 16 workers rarely helps and costs memory.
    """
    if not usable_cores:
        return None, "the number of usable cores is unknown"
    processes = max(1, processes)
    per_process = _cores_per_process(usable_cores, processes)
    if per_process == 1:
        return 0, "1 core per training process: workers would only compete with it"
    keep = 2 if per_process > _FEW_CORES else 1
    suggestion = min(16, max(1, per_process - keep))
    shared = f", shared by {processes} training processes" if processes > 1 else ""
    left = per_process - suggestion
    workers = f"{suggestion} worker leaves" if suggestion == 1 else f"{suggestion} workers leave"
    reason = (f"{usable_cores} core{'s' if usable_cores != 1 else ''} usable{shared}: {workers} "
              f"{left} core{'s' if left != 1 else ''} for the training process")
    return suggestion, reason


def _batches_per_epoch(loader: LoaderSettings) -> Optional[float]:
    if loader.dataset_len and loader.batch_size:
        full, rest = divmod(loader.dataset_len, loader.batch_size)
        return full + (1 if rest and not loader.drop_last else 0)
    return ratio(loader.batches, loader.iterations)


def _training_processes(record: RunRecord) -> int:
    s = record.settings
    if s.distributed and s.world_size:
        return s.world_size
    return 1


_MIN_FETCH_SECONDS = 0.5  # below this, start-up CPU time swamps the ratio


def _fetch_cpu_share(workers, stats) -> Optional[float]:
    fetch = sum(w.fetch for w in stats if w.worker_id >= 0)
    if fetch < _MIN_FETCH_SECONDS or not workers:
        return None
    cpu = 0.0
    for p in workers:
        for i in range(1, min(len(p.t), len(p.cpu_percent))):
            cpu += p.cpu_percent[i] / 100.0 * (p.t[i] - p.t[i - 1])
    return min(1.0, cpu / fetch)


_MAX_PREFETCH = 16  # deeper queues cost host (pinned) memory for little more


def suggest_prefetch_factor(num_workers: object, prefetch_factor: object, stall: object,
                            step: object) -> Optional[int]:
    """A queue deep enough that the batches ahead of a slow one keep the loop busy while it is made.

    The queue holds num_workers x prefetch_factor batches, one consumed per step (``step``
    seconds), so its lead is that many steps. Twice the usual ``stall`` covers two slow batches
    in a row on one worker. Computed from the step facts, after the families (facts/__init__)."""
    if not num_workers or not prefetch_factor or not stall or not step:
        return None
    extra = math.ceil(2.0 * stall / (num_workers * step))  # type: ignore[operator]
    return min(_MAX_PREFETCH, prefetch_factor + max(1, extra))  # type: ignore[operator]


def _worker_facts(record: RunRecord, loader_id: Optional[int]) -> dict[str, object]:
    window = steady_span(record)
    workers = [p for p in record.samples.processes if p.role == "worker"]
    per_worker = [mean(in_window(p.t, p.cpu_percent, window)) for p in workers]
    busy = [c / 100.0 for c in per_worker if c is not None and c > 5.0]
    stats = [w for w in record.workers if loader_id is None or w.loader_id == loader_id]
    batches = sum(w.batches for w in stats)
    cats = record.hotspots.worker_categories
    return {
        "worker_fetch_cpu_share": _fetch_cpu_share(workers, stats),
        "worker_processes": len(workers),
        "worker_cpu_saturation": mean(busy) if busy else None,
        "worker_cores_used": sum(busy) if busy else (0.0 if workers else None),
        "fetch_per_batch": ratio(sum(w.fetch for w in stats), batches),
        "worker_decode_share": cats.get("decode"),
        "worker_transform_share": cats.get("transform"),
        "worker_io_share": cats.get("io"),
        "worker_sleep_share": cats.get("sleep"),
        "worker_collate_share": cats.get("collate"),
    }


_INPUT_KINDS = {"input_decode_share": "decode", "input_transform_share": "transform",
                "input_io_share": "io", "input_sleep_share": "sleep"}


def _batch_making(record: RunRecord, out: dict[str, object]) -> dict[str, object]:
    """What making a batch is spent on: the workers' profile, or the main process's when it makes
    the batches itself (num_workers=0: decode and transforms run inside the loop's wait)."""
    if out.get("num_workers"):
        shares = {name: out.get(f"worker_{kind}_share") for name, kind in _INPUT_KINDS.items()}
        cats = record.hotspots.worker_categories
        if cats:
            shares["input_blocked_share"] = min(1.0, cats.get("sleep", 0.0) + cats.get("network", 0.0))
        return shares
    hot = record.hotspots
    profiled = [s for s in record.steps if s.phase == "cprofile" and not s.validation]
    wait = sum(s.data_wait for s in profiled)
    if not hot.availability.available or not hot.main_categories or wait <= 0 or hot.window <= 0:
        return {}
    cats, scale = hot.main_categories, hot.window / wait
    shares = {name: min(1.0, cats.get(kind, 0.0) * scale) for name, kind in _INPUT_KINDS.items()}
    shares["input_blocked_share"] = min(1.0, (cats.get("sleep", 0.0) + cats.get("network", 0.0)) * scale)
    return shares


_MIN_WAIT_SECONDS = 0.005  # less waiting than this in the window is too little to read its CPU from


def _wait_facts(steps, num_workers: object) -> dict[str, object]:
    """The loop's CPU time and its receiving of batches inside its waits (probe/instrument.py)."""
    timed = [s for s in steps if s.data_wait_cpu is not None]
    wait = sum(s.data_wait for s in timed)
    out: dict[str, object] = {}
    if timed and wait >= _MIN_WAIT_SECONDS:
        out["data_wait_cpu_share"] = min(1.0, sum(s.data_wait_cpu for s in timed) / wait)
    received = [s for s in steps if s.data_receive is not None]
    if num_workers and received:
        seconds = sum(s.data_receive for s in received)
        out["batch_receive_per_batch"] = ratio(seconds, sum(max(1, s.batches) for s in received))
        out["batch_receive_share"] = ratio(seconds, sum(s.duration for s in received))
    return out


# Batch-making on a CPU less than this share of its time waits (dataloader-workers-waiting's
# max_fetch_cpu): its workers need no core of their own, so their count is not capped by the cores.
WAITING_CPU_SHARE = 0.3
_WAITING_HEADROOM = 1.5  # workers beyond those needed on average, for batches that wait longer
_MAX_WORKERS = 16


def _waiting_suggestion(out: dict[str, object]) -> None:
    """When making a batch waits rather than computes, as many workers as keep up (with headroom),
    whatever the cores: a waiting worker uses none."""
    share, needed, cores_based = (out.get("batch_making_cpu_share"), out.get("workers_needed"),
                                  out.get("suggested_num_workers"))
    if not isinstance(share, float) or share >= WAITING_CPU_SHARE or not isinstance(needed, (int, float)):
        return
    count = min(_MAX_WORKERS, max(int(cores_based or 1), math.ceil(needed * _WAITING_HEADROOM)))
    if count <= (cores_based or 0):
        return
    where = "the workers were" if out.get("num_workers") else "the training loop was"
    out["suggested_num_workers"] = count
    out["suggested_num_workers_reason"] = (
        f"making a batch waits: {where} on a CPU {share:.0%} of the time spent making batches, so workers "
        f"need no core of their own; about {needed:g} keep up, {count} leave room for slower batches")


# A training loop busy (outside its data wait) less than this share of its step leaves its core to
# the workers: the reserved core of suggest_num_workers would sit idle while the workers queue.
IDLE_LOOP_SHARE = 0.2


def _idle_loop_suggestion(out: dict[str, object], steps, usable: Optional[int], processes: int) -> None:
    """When the training loop only waits for its batches, a worker for every core it can use: the
    core kept for the training process would otherwise sit idle (2 cores, num_workers=0, a loop that
    waits 98% of its step: one worker only moves the wait, two halve it)."""
    cores_based = out.get("suggested_num_workers")
    if not steps or not usable or not isinstance(cores_based, int) or cores_based <= 0:
        return
    per_process = _cores_per_process(usable, processes)
    busy = sum(s.duration - s.data_wait for s in steps) / max(1e-12, sum(s.duration for s in steps))
    if busy >= IDLE_LOOP_SHARE or per_process <= cores_based or per_process > _FEW_CORES:
        return  # on more cores, the one kept back matters little
    out["suggested_num_workers"] = per_process
    out["suggested_num_workers_reason"] = (
        f"{usable} cores usable, and the training loop is busy only {busy:.0%} of its step (it waits for "
        f"the batches the rest): {per_process} workers use every core")


def compute(record: RunRecord) -> dict[str, object]:
    loader = training_loader(record)
    env = record.environment
    usable, processes = env.usable_cores or env.logical_cores, _training_processes(record)
    suggestion, reason = suggest_num_workers(usable, processes)
    out: dict[str, object] = {
        "loader_count": len(record.settings.dataloaders),
        "suggested_num_workers": suggestion,
        "suggested_num_workers_reason": reason,
    }
    if loader is not None:
        out.update({
            "num_workers": loader.num_workers,
            "batch_size": loader.batch_size,
            "pin_memory": loader.pin_memory,
            "persistent_workers": loader.persistent_workers,
            "prefetch_factor": loader.prefetch_factor,
            "start_method": loader.start_method,
            "loader_iterations": loader.iterations,
            "first_batch_wait": loader.first_batch_wait,
            "batches_per_epoch": _batches_per_epoch(loader),
        })
    out.update(_worker_facts(record, loader.loader_id if loader else None))
    out.update(_batch_making(record, out))
    steps = steady_steps(record)
    out.update(_wait_facts(steps, out.get("num_workers")))
    out["batch_making_cpu_share"] = (out.get("worker_fetch_cpu_share") if out.get("num_workers")
                                     else out.get("data_wait_cpu_share"))
    if loader is not None and loader.num_workers == 0 and steps:
        # The main process fetches inside the loop's wait, so the steady window's waits are the
        # fetch time; the whole run's mean would include the cProfile window's slowed fetches.
        out["fetch_per_batch"] = statistics.median(s.data_wait / max(1, s.batches) for s in steps)
    if steps and out["fetch_per_batch"] is not None:
        busy = sum(s.duration - s.data_wait for s in steps) / len(steps)
        batches = sum(max(1, s.batches) for s in steps) / len(steps)
        need = ratio(out["fetch_per_batch"] * batches, busy)  # type: ignore[operator]
        out["workers_needed"] = None if need is None else round(need, 1)
    _idle_loop_suggestion(out, steps, usable, processes)
    _waiting_suggestion(out)
    return out


# The share of a CPU model's math that runs in parallel over torch's threads (Amdahl's law),
# assumed. Measured with --verify on 2 cores, one worker with one torch thread instead of two:
# a CIFAR ResNet (big convolutions, near 2x from its second thread) 5% slower, a GAN of small
# linear layers 5% faster, an LSTM fed by MNIST transforms 1.25x faster. Half parallel (the second
# thread worth 1.33x) orders the three as measured.
MATH_PARALLEL_SHARE = 0.5


def _number(values: dict[str, object], name: str) -> Optional[float]:
    value = values.get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _math_cores(values: dict[str, object], compute: float) -> Optional[float]:
    """Cores the model's math kept busy: the training process's measured cores over the steady
    steps, less one core for its time outside forward, backward and the optimizer (Python, and
    with num_workers=0 the batch-making, which runs on one core), over the math's time."""
    step, used = _number(values, "step_time"), _number(values, "main_cpu_cores")
    if step is None or used is None or compute <= 0:
        return None
    outside = step - compute
    if values.get("num_workers"):
        outside -= _number(values, "data_wait_per_step") or 0.0  # waiting on workers is idle
    return (used * step - max(0.0, outside)) / compute


def _cores_taken(values: dict[str, object], workers: int, making: float, busy: float) -> float:
    """Cores ``workers`` workers would take from the model's math: one each, unless making a batch
    waits; then the CPU part of making one batch per step (at the pace they would allow)."""
    share = _number(values, "batch_making_cpu_share")
    if share is None or share >= WAITING_CPU_SHARE:
        return float(workers)
    step = max(busy, making / workers)
    return min(float(workers), making * share / step) if step > 0 else float(workers)


def fetch_uncontended(values: dict[str, object]) -> dict[str, object]:
    """A worker's time to make a batch, less its waits for a core (facts of the host family).

    On a machine whose cores the loop, its threads and the workers oversubscribe, a worker's
    fetch time is half waiting for a core: the CIFAR-10 tutorial's two workers on two cores made
    a batch of 4 in 0.97 ms of wall time, 0.47 ms of it on a core. The loop that made its own
    batches with the workers gone would pay the second figure, not the first."""
    fetch = _number(values, "fetch_per_batch")
    waited = _number(values, "worker_cpu_wait_share") if values.get("num_workers") else None
    if fetch is None or waited is None:
        return {"fetch_uncontended_per_batch": fetch}
    return {"fetch_uncontended_per_batch": fetch * (1.0 - min(1.0, max(0.0, waited)))}


def with_suggested_workers(values: dict[str, object]) -> dict[str, object]:
    """The steady step estimated with ``suggested_num_workers`` workers (facts of every family).

    The workers make the batches in parallel with the loop, so the step becomes the slower of the
    loop without its data wait and the workers' batch-making divided among them. On a CPU-only run
    the workers' cores come out of the ones the model's math runs on: with torch's threads already
    on every core, a worker slows the math. How much depends on how well the math uses its cores,
    which one run does not show (spinning OpenMP threads count as busy), so Amdahl's law with
    ``MATH_PARALLEL_SHARE`` of the math parallel stands in for it. Workers whose batch-making waits
    (``batch_making_cpu_share`` under ``WAITING_CPU_SHARE``) take only the cores their CPU time fills.
    """
    step, wait = _number(values, "step_time"), _number(values, "data_wait_per_step")
    workers = values.get("suggested_num_workers")
    now = values.get("num_workers") or 0
    if step is None or wait is None or not isinstance(workers, int) or workers <= now:
        return {}
    fetch = _number(values, "fetch_per_batch")
    if fetch is not None:
        making = fetch * max(1.0, _number(values, "batches_per_step") or 1.0)
    else:  # without per-batch timing: the wait itself (made in the loop), or all workers busy
        making = wait if now == 0 else step * now
    busy, slower, threads_after = step - wait, 0.0, None
    usable, threads = _number(values, "usable_cores"), _number(values, "torch_threads")
    compute = _number(values, "compute_per_step")
    if values.get("cpu_only") and usable and threads and compute:
        left = max(1.0, int(usable) - _cores_taken(values, workers, making, busy))
        threads_after = int(min(threads, max(1, math.floor(left + 0.5))))
        math_cores = _math_cores(values, compute)
        math_cores = min(threads, usable) if math_cores is None else \
            max(1.0, min(math_cores, threads, usable))
        if math_cores > left:
            p = MATH_PARALLEL_SHARE
            slower = compute * ((1 - p + p / left) / (1 - p + p / math_cores) - 1.0)
    return {"torch_threads_with_workers": threads_after,
            "step_with_suggested_workers": max(busy + slower, making / workers)}
