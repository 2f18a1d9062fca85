"""Machine facts: cores, threads, CPU load, storage and the main process."""

from __future__ import annotations

from typing import Optional

from ..notebook.cells import describe as describe_cell
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
    "run_cpu_share": ("share", "Cores the run's own processes (training process and DataLoader "
                      "workers) used, over the usable cores."),
    "run_cpu_cores": ("count", "Cores the run's own processes (training process, DataLoader workers "
                      "and their helpers) used together, on average during the steady steps."),
    "outside_cpu_cores": ("count", "Cores other programs on the machine kept busy during the steady "
                          "steps: the machine's busy cores minus the run's own."),
    "main_cpu_wait_share": ("share", "Of the CPU time the training process's threads wanted during the "
                            "steady steps, the share they spent waiting for a free core (the run "
                            "queue, /proc schedstat): measured contention."),
    "main_cpu_wait_cores": ("count", "Threads of the training process waiting for a core, on average."),
    "worker_cpu_wait_share": ("share", "The same for the DataLoader workers together."),
    "run_cpu_demand": ("count", "Cores the run's own processes wanted on average: the cores they used "
                       "plus the cores' worth of time their threads waited for one."),
    "worker_cpu_demand": ("count", "Cores the DataLoader workers wanted on average (used plus waited)."),
    "suggested_torch_threads": ("count", "Intra-op threads that fit the cores the workers leave: usable "
                                "cores minus the cores the workers wanted, at least 1."),
    "cpu_pressure": ("share", "Share of the steady steps' time that some task on the machine waited for "
                     "a CPU (Linux pressure stall information)."),
    "disk_read_bps_mean": ("B/s", "Mean storage read throughput of the machine, steady steps."),
    "disk_read_bps_max": ("B/s", "Highest storage read throughput seen."),
    "page_cache_hit_share": ("share", "Share of the run's reads served from the page cache "
                             "(1 - storage reads / all reads)."),
    "rotational_disk": ("bool", "The data/script disk reports rotational (HDD; a hint only, "
                        "virtual disks often say so wrongly)."),
    "network_storage": ("bool", "The data/script folder is on network storage (NFS, CIFS, FUSE)."),
    "swap_used_max": ("bytes", "Most swap in use during the run."),
    "top_host_function": ("text", "The script's own function (not a module's forward) with the most self time in the "
                          "training process (cProfile window): 'file:line function'."),
    "top_host_function_name": ("text", "That function's name alone (for titles)."),
    "top_host_function_share": ("share", "Its self time over the profiled window: its share of the "
                                "profiled steps' time in its own code."),
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


_MODEL_METHODS = frozenset({"forward", "_forward", "__call__", "_call_impl"})


def _hotspot_facts(record: RunRecord) -> dict[str, object]:
    hot = record.hotspots
    # A module's forward runs inside the forward phase (the hooks time it), not in the loop's own code.
    mine = [f for f in hot.main if f.user_code and f.function not in _MODEL_METHODS]
    if not hot.availability.available or not mine or hot.window <= 0:
        return {}
    top = max(mine, key=lambda f: f.self_time)
    cell = describe_cell(top.file, top.line)  # a notebook's cell: "train() in cell 6, line 4"
    name = f"{top.function}() in {cell}" if cell else f"{top.file.rsplit('/', 1)[-1]}:{top.line} {top.function}"
    return {"top_host_function": name, "top_host_function_name": f"{top.function}()",
            "top_host_function_share": min(1.0, top.self_time / hot.window)}


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
    out.update(_contention(record, window))
    host, logical = record.samples.host, record.environment.logical_cores
    pressure = mean(in_window(host.t, host.cpu_pressure_percent, window)) \
        if len(host.cpu_pressure_percent) == len(host.t) else None
    out["cpu_pressure"] = None if pressure is None else pressure / 100.0
    machine = mean(in_window(host.t, host.cpu_percent, window))
    if machine is not None and logical and out["run_cpu_cores"] is not None:
        out["outside_cpu_cores"] = max(0.0, machine / 100.0 * logical - out["run_cpu_cores"])  # type: ignore[operator]
    return out


def _used_and_waited(p, window) -> Optional[tuple[float, float, float]]:
    """CPU seconds a process used and seconds its threads waited for a core, over the window's
    samples, and the wall time they span; None without run-queue figures."""
    if len(p.cpu_wait) != len(p.t) or len(p.t) < 2:
        return None
    lo, hi = window if window is not None else (p.t[0], p.t[-1])
    used = waited = wall = 0.0
    for i in range(1, len(p.t)):
        if not (lo <= p.t[i] <= hi):
            continue
        dt = p.t[i] - p.t[i - 1]
        wall += dt
        used += p.cpu_percent[i] / 100.0 * dt
        waited += max(0.0, p.cpu_wait[i] - p.cpu_wait[i - 1])  # a thread that ended takes its count along
    return (used, waited, wall) if wall > 0 else None


def _contention(record: RunRecord, window) -> dict[str, object]:
    """Measured contention: how long the run's threads waited in the run queue for a core."""
    out: dict[str, object] = {}
    demand = 0.0
    known = False
    for role, name in (("main", "main"), ("worker", "worker")):
        figures = [f for f in (_used_and_waited(p, window) for p in record.samples.processes if p.role == role)
                   if f is not None]
        if not figures:
            continue
        known = True
        used, waited = sum(f[0] for f in figures), sum(f[1] for f in figures)
        wall = max(f[2] for f in figures)
        out[f"{name}_cpu_wait_share"] = ratio(waited, used + waited)
        if role == "main":
            out["main_cpu_wait_cores"] = waited / wall
        else:
            out["worker_cpu_demand"] = (used + waited) / wall
        demand += (used + waited) / wall
    if known:
        out["run_cpu_demand"] = demand
    usable = record.environment.usable_cores or record.environment.logical_cores
    if usable:
        workers = out.get("worker_cpu_demand", 0.0)
        out["suggested_torch_threads"] = max(1, int(round(usable - workers)))  # type: ignore[operator]
    return out
