"""Machine facts: cores, threads, CPU load, storage and the main process."""

from __future__ import annotations

from ..record import RunRecord
from ._stats import clean, mean, ratio
from .window import in_window, steady_span

__all__ = ["FAMILY", "FACTS", "compute"]

FAMILY = "host"

FACTS = {
    "usable_cores": ("count", "Cores this run may use (CPU affinity and cgroup quota applied)."),
    "logical_cores": ("count", "Logical cores of the machine."),
    "torch_threads": ("count", "torch intra-op threads of the training process."),
    "cpu_thread_demand": ("count", "Busy threads the run asks for: torch intra-op threads of the "
                          "training process plus one per DataLoader worker."),
    "cpu_oversubscription": ("x", "cpu_thread_demand over usable cores; above 1 threads queue for "
                             "cores."),
    "cpu_busy_mean": ("share", "Mean CPU use of the whole machine during the steady steps."),
    "steal_mean": ("share", "Mean CPU steal (time taken by the hypervisor) during the steady steps."),
    "iowait_mean": ("share", "Mean iowait of the machine during the steady steps."),
    "main_cpu_cores": ("count", "Cores the training (main) process used on average."),
    "main_thread_starvation": ("share", "How far the training process fell short of the cores "
                               "its threads wanted: 1 - main_cpu_cores / (torch_threads x "
                               "compute share + 1 x the loop's own share)."),
    "run_cpu_share": ("share", "Cores the run's own processes (training process and DataLoader "
                      "workers) used, over the usable cores."),
    "run_cpu_cores": ("count", "Cores the run's own processes (training process, DataLoader workers "
                      "and their helpers) used together, on average during the steady steps."),
    "outside_cpu_cores": ("count", "Cores other programs on the machine kept busy during the steady "
                          "steps: the machine's busy cores minus the run's own."),
    "disk_read_bps_mean": ("B/s", "Mean storage read throughput of the machine, steady steps."),
    "disk_read_bps_max": ("B/s", "Highest storage read throughput seen."),
    "page_cache_hit_share": ("share", "Share of the run's reads served from the page cache "
                             "(1 - storage reads / all reads)."),
    "rotational_disk": ("bool", "The data/script disk reports rotational (HDD; a hint only, "
                        "virtual disks often say so wrongly)."),
    "network_storage": ("bool", "The data/script folder is on network storage (NFS, CIFS, FUSE)."),
    "swap_used_max": ("bytes", "Most swap in use during the run."),
    "top_host_function": ("text", "The script's own function with the most self time in the "
                          "training process (cProfile window): 'file:line function'."),
    "top_host_function_share": ("share", "Its self time over the profiled window."),
    "pillow_simd": ("bool", "Pillow-SIMD is installed."),
    "libjpeg_turbo": ("bool", "Pillow uses libjpeg-turbo."),
    "ram_total": ("bytes", "Machine RAM."),
}


def _reads(record: RunRecord) -> tuple[float, float]:
    storage = chars = 0.0
    for p in record.samples.processes:
        if len(p.read_bytes) > 1:
            storage += max(0, p.read_bytes[-1] - p.read_bytes[0])
        if len(p.read_chars) > 1:
            chars += max(0, p.read_chars[-1] - p.read_chars[0])
    return storage, chars


def _sample_facts(record: RunRecord) -> dict[str, object]:
    window = steady_span(record)
    host = record.samples.host

    def share(series):
        m = mean(in_window(host.t, series, window))
        return None if m is None else m / 100.0

    mains = [p for p in record.samples.processes if p.role == "main"]
    main_cpu = mean(in_window(mains[0].t, mains[0].cpu_percent, window)) if mains else None
    storage, chars = _reads(record)
    reads = clean(in_window(host.t, host.disk_read_bps, window))
    return {
        "cpu_busy_mean": share(host.cpu_percent),
        "steal_mean": share(host.steal_percent),
        "iowait_mean": share(host.iowait_percent),
        "main_cpu_cores": None if main_cpu is None else main_cpu / 100.0,
        "disk_read_bps_mean": mean(reads),
        "disk_read_bps_max": max(reads) if reads else None,
        "page_cache_hit_share": (1.0 - storage / chars) if chars > 0 and storage <= chars else None,
        "swap_used_max": max(host.swap_used) if host.swap_used else None,
    }


def _hotspot_facts(record: RunRecord) -> dict[str, object]:
    hot = record.hotspots
    mine = [f for f in hot.main if f.user_code]
    if not hot.availability.available or not mine or hot.window <= 0:
        return {}
    top = max(mine, key=lambda f: f.self_time)
    name = f"{top.file.rsplit('/', 1)[-1]}:{top.line} {top.function}"
    return {"top_host_function": name, "top_host_function_share": top.self_time / hot.window}


def compute(record: RunRecord) -> dict[str, object]:
    env = record.environment
    usable = env.usable_cores or env.logical_cores
    threads = record.settings.torch_threads or env.torch_threads
    loaders = record.settings.dataloaders
    workers = max((d.num_workers for d in loaders), default=0)
    demand = threads + workers if threads else None
    disks = env.disks
    out: dict[str, object] = {
        "usable_cores": usable,
        "logical_cores": env.logical_cores,
        "torch_threads": threads,
        "cpu_thread_demand": demand,
        "cpu_oversubscription": ratio(demand, usable),
        "rotational_disk": any(d.rotational for d in disks) if disks else None,
        "network_storage": any(d.network for d in disks) if disks else None,
        "pillow_simd": env.pillow_simd,
        "libjpeg_turbo": env.libjpeg_turbo,
        "ram_total": env.ram_total,
    }
    out.update(_sample_facts(record))
    out.update(_hotspot_facts(record))
    out.update(_cpu_split(record, usable))
    return out


def _cpu_split(record: RunRecord, usable: object) -> dict[str, object]:
    """Cores the run used, over the usable cores, and cores other programs used meanwhile."""
    window = steady_span(record)
    processes = record.samples.processes
    training = [mean(in_window(p.t, p.cpu_percent, window)) for p in processes if p.role in ("main", "worker")]
    every = [mean(in_window(p.t, p.cpu_percent, window)) for p in processes]
    known = [c for c in training if c is not None]
    out: dict[str, object] = {
        "run_cpu_share": sum(known) / 100.0 / usable if known and usable else None,  # type: ignore[operator]
        "run_cpu_cores": sum(c for c in every if c is not None) / 100.0 if processes else None,
    }
    host, logical = record.samples.host, record.environment.logical_cores
    machine = mean(in_window(host.t, host.cpu_percent, window))
    if machine is not None and logical and out["run_cpu_cores"] is not None:
        out["outside_cpu_cores"] = max(0.0, machine / 100.0 * logical - out["run_cpu_cores"])  # type: ignore[operator]
    return out
