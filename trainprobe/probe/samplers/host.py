"""psutil samplers that run in the parent: the whole machine and the run's process tree.

Both samplers are driven by the sampling thread in ``samplers/__init__.py``:
``sample(t)`` reads one sample, ``result()`` returns what was stored so far.
They append under a lock shared with ``Sampling.snapshot`` so that a partial
record can be taken while the run goes on.

Column convention (the schema's columns are not Optional): every column of a
series is as long as its ``t``, except a quantity that cannot be measured for
that series at all, whose column stays empty (for example ``read_bytes`` when
``/proc/<pid>/io`` is not readable). A sample is stored whole or not at all.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Optional

import psutil

from ...record import Availability, HostSamples, ProcessSeries

__all__ = [
    "HostSampler",
    "ProcessTreeSampler",
    "classify_role",
    "ROLE_MAIN",
    "ROLE_WORKER",
    "ROLE_TRACKER",
    "ROLE_OTHER",
]

ROLE_MAIN = "main"
ROLE_WORKER = "worker"
ROLE_TRACKER = "resource_tracker"
ROLE_OTHER = "other"

# How often the process tree is walked again: children(recursive=True) reads
# every /proc/<pid>/stat on the machine, so it is the expensive part.
TREE_REFRESH_S = 1.0
CMDLINE_MAX = 500  # characters kept of a command line
_FORKSERVER = "multiprocessing.forkserver"

_GONE = (psutil.NoSuchProcess, psutil.ZombieProcess)

# Percentages rounded to 0.1 and shared as one float object per value: a
# per-core series holds cores x samples numbers, and sharing keeps it at one
# pointer each (8 bytes instead of 32) on many-core machines.
_PERCENT_TABLE = tuple(i / 10 for i in range(1001))


def _percent(value: float) -> float:
    tenths = int(value * 10 + 0.5)
    if 0 <= tenths <= 1000:
        return _PERCENT_TABLE[tenths]
    return round(value, 1)


def _round_t(t: float) -> float:
    return round(t, 4)


# --------------------------------------------------------------------------- host


def _cpu_total(times) -> float:
    # On Linux guest time is already counted in user/nice: leave it out (as psutil does).
    return sum(times) - getattr(times, "guest", 0.0) - getattr(times, "guest_nice", 0.0)


def _cpu_busy(times) -> float:
    return _cpu_total(times) - times.idle - getattr(times, "iowait", 0.0)


def _busy_percent(prev, cur) -> float:
    total = _cpu_total(cur) - _cpu_total(prev)
    if total <= 0:
        return 0.0
    busy = _cpu_busy(cur) - _cpu_busy(prev)
    return max(0.0, min(100.0, 100.0 * busy / total))


def _field_percent(prev, cur, name: str) -> float:
    total = _cpu_total(cur) - _cpu_total(prev)
    if total <= 0:
        return 0.0
    delta = getattr(cur, name, 0.0) - getattr(prev, name, 0.0)
    return max(0.0, min(100.0, 100.0 * delta / total))


class _Summed:
    """The per-core cpu_times added up field by field (one /proc/stat read serves both)."""

    def __init__(self, per_core) -> None:
        self._fields = per_core[0]._fields
        for name in self._fields:
            setattr(self, name, sum(getattr(c, name) for c in per_core))

    def __iter__(self):
        return iter(getattr(self, name) for name in self._fields)


_PSI_CPU = "/proc/pressure/cpu"


def _cpu_pressure_total() -> Optional[float]:
    """Linux pressure stall information: seconds during which at least one runnable task waited
    for a CPU, since boot (None where the kernel has no PSI)."""
    try:
        with open(_PSI_CPU, encoding="ascii") as fh:
            first = fh.readline()
    except OSError:
        return None
    for part in first.split():
        if part.startswith("total="):
            return int(part[6:]) * 1e-6
    return None


def _disk_read_bytes() -> Optional[int]:
    counters = psutil.disk_io_counters()  # None on machines without disks in /proc/diskstats
    return None if counters is None else counters.read_bytes


class HostSampler:
    """Whole-machine CPU (total, per core, iowait, steal), memory, swap and disk reads.

    CPU figures are computed from ``psutil.cpu_times`` deltas kept here rather
    than from ``psutil.cpu_percent``, whose baseline is module-global and would
    be disturbed by any other caller in this process.
    """

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._t: list[float] = []
        self._cpu: list[float] = []
        self._per_core: list[tuple[float, ...]] = []
        self._iowait: list[float] = []
        self._steal: list[float] = []
        self._mem_used: list[int] = []
        self._mem_available: list[int] = []
        self._swap_used: list[int] = []
        self._disk_bps: list[float] = []
        self._pressure: list[float] = []
        self._prev_pressure: Optional[tuple[float, float]] = None
        self.availability = Availability(False, "host sampling has not started")
        self._prev_cpu = None
        self._prev_disk: Optional[tuple[float, int]] = None
        self._has_iowait = self._has_steal = self._has_swap = self._has_disk = False
        self._prime()

    def _prime(self) -> None:
        try:
            self._prev_cpu = psutil.cpu_times(percpu=True)
            psutil.virtual_memory()
        except Exception as exc:  # psutil unusable here (no /proc, sandbox...)
            self.availability = Availability(False, f"host metrics unavailable: {exc}")
            return
        missing = []
        sample = self._prev_cpu[0]
        self._has_iowait = hasattr(sample, "iowait")
        self._has_steal = hasattr(sample, "steal")
        if not self._has_iowait:
            missing.append("iowait")
        if not self._has_steal:
            missing.append("steal time")
        try:
            psutil.swap_memory()
            self._has_swap = True
        except Exception:
            missing.append("swap")
        try:
            read = _disk_read_bytes()
        except Exception:
            read = None
        if read is None:
            missing.append("disk read rate")
        else:
            self._has_disk = True
            self._prev_disk = (time.monotonic(), read)
        pressure = _cpu_pressure_total()
        if pressure is None:
            missing.append("CPU pressure (PSI)")
        else:
            self._prev_pressure = (time.monotonic(), pressure)
        reason = f"not measured here: {', '.join(missing)}" if missing else None
        self.availability = Availability(True, reason)

    @property
    def available(self) -> bool:
        return self.availability.available

    def sample(self, t: float) -> bool:
        """Read and store one sample; False when nothing was stored."""
        if not self.available:
            return False
        try:
            values = self._read()
        except Exception:  # a transient /proc failure: drop this sample, keep going
            return False
        if values is None:
            return False
        with self._lock:
            self._store(_round_t(t), values)
        return True

    def _read(self):
        per_core = psutil.cpu_times(percpu=True)
        prev = self._prev_cpu
        self._prev_cpu = per_core
        if prev is None or len(prev) != len(per_core):  # cores went on/offline: new baseline
            return None
        prev_sum, cur_sum = _Summed(prev), _Summed(per_core)
        mem = psutil.virtual_memory()
        swap = psutil.swap_memory().used if self._has_swap else None
        disk_bps = self._read_disk_rate() if self._has_disk else None
        pressure = self._read_pressure() if self._prev_pressure is not None else None
        return (
            _percent(_busy_percent(prev_sum, cur_sum)),
            tuple(_percent(_busy_percent(p, c)) for p, c in zip(prev, per_core)),
            _percent(_field_percent(prev_sum, cur_sum, "iowait")) if self._has_iowait else None,
            _percent(_field_percent(prev_sum, cur_sum, "steal")) if self._has_steal else None,
            int(mem.used),
            int(mem.available),
            None if swap is None else int(swap),
            disk_bps,
            pressure,
        )

    def _read_pressure(self) -> Optional[float]:
        """Percent of the time since the last read that some task waited for a CPU."""
        now, total = time.monotonic(), _cpu_pressure_total()
        prev_at, prev_total = self._prev_pressure or (now, total)
        if total is None or now <= prev_at:
            return None
        self._prev_pressure = (now, total)
        return _percent(100.0 * max(0.0, total - prev_total) / (now - prev_at))

    def _read_disk_rate(self) -> float:
        # bytes over the real time since the last read, not over the nominal
        # interval: late ticks and thinned storage would otherwise inflate it
        now, read = time.monotonic(), _disk_read_bytes()
        prev_at, prev_read = self._prev_disk or (now, read)
        self._prev_disk = (now, read)
        if read is None or now <= prev_at:
            return 0.0
        return round(max(0, read - prev_read) / (now - prev_at), 1)

    def _store(self, t: float, values) -> None:
        cpu, per_core, iowait, steal, used, available, swap, disk_bps, pressure = values
        self._t.append(t)
        self._cpu.append(cpu)
        self._per_core.append(per_core)
        self._mem_used.append(used)
        self._mem_available.append(available)
        if iowait is not None:
            self._iowait.append(iowait)
        if steal is not None:
            self._steal.append(steal)
        if swap is not None:
            self._swap_used.append(swap)
        if disk_bps is not None:
            self._disk_bps.append(disk_bps)
        if pressure is not None:
            self._pressure.append(pressure)

    def result(self) -> HostSamples:
        """A frozen copy of what was stored; the caller holds the lock."""
        return HostSamples(
            t=tuple(self._t),
            cpu_percent=tuple(self._cpu),
            per_core=tuple(self._per_core),
            iowait_percent=tuple(self._iowait),
            steal_percent=tuple(self._steal),
            mem_used=tuple(self._mem_used),
            mem_available=tuple(self._mem_available),
            swap_used=tuple(self._swap_used),
            disk_read_bps=tuple(self._disk_bps),
            cpu_pressure_percent=tuple(self._pressure),
        )


# ------------------------------------------------------------------ process tree


def _is_python(proc: psutil.Process, cmdline: list[str], root_exe: Optional[str]) -> bool:
    try:
        exe = proc.exe()
    except (psutil.Error, OSError):
        exe = ""
    if exe and root_exe and exe == root_exe:
        return True
    names = [os.path.basename(exe), os.path.basename(cmdline[0]) if cmdline else ""]
    try:
        names.append(proc.name())  # torch renames DataLoader workers "pt_data_worker"
    except psutil.Error:
        pass
    return any("python" in n.lower() or n == "pt_data_worker" for n in names)


def classify_role(
    pid: int,
    root_pid: int,
    cmdline: str,
    is_python: bool,
    parent_cmdline: str = "",
) -> str:
    """The role of one process of the run's tree, from what psutil can see of it.

    A forkserver (``multiprocessing.forkserver``) process is itself idle; the
    workers it forks carry the same command line, so a forkserver process whose
    parent is a forkserver is a worker and the server itself is "other".
    """
    if pid == root_pid:
        return ROLE_MAIN
    if "resource_tracker" in cmdline or "semaphore_tracker" in cmdline:
        return ROLE_TRACKER
    if _FORKSERVER in cmdline and _FORKSERVER not in parent_cmdline:
        return ROLE_OTHER
    return ROLE_WORKER if is_python else ROLE_OTHER


@dataclass
class _Tracked:
    proc: psutil.Process
    role: str
    cmdline: str
    ended: bool = False
    io: Optional[bool] = None  # None until the first read decides
    last_io: tuple[int, int] = (0, 0)
    t: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)
    read_bytes: list[int] = field(default_factory=list)
    read_chars: list[int] = field(default_factory=list)
    threads: list[int] = field(default_factory=list)
    cpu_wait: list[float] = field(default_factory=list)
    waits: Optional[bool] = None  # None until the first read decides
    cpu_user: list[float] = field(default_factory=list)
    cpu_system: list[float] = field(default_factory=list)
    minor_faults: list[int] = field(default_factory=list)
    kernel: Optional[bool] = None  # None until the first read decides

    def series(self) -> ProcessSeries:
        return ProcessSeries(
            pid=self.proc.pid,
            role=self.role,
            cmdline=self.cmdline,
            t=tuple(self.t),
            cpu_percent=tuple(self.cpu),
            rss=tuple(self.rss),
            read_bytes=tuple(self.read_bytes),
            read_chars=tuple(self.read_chars),
            threads=tuple(self.threads),
            cpu_wait=tuple(self.cpu_wait),
            cpu_user=tuple(self.cpu_user),
            cpu_system=tuple(self.cpu_system),
            minor_faults=tuple(self.minor_faults),
        )


def _cpu_wait(pid: int) -> Optional[float]:
    """Seconds the process's threads have spent runnable but waiting for a CPU (the run queue),
    summed over its live threads: /proc/PID/task/TID/schedstat, second field, in ns."""
    total = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as fh:
                total += int(fh.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile
    return total * 1e-9


_TICKS_PER_S = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") and "SC_CLK_TCK" in os.sysconf_names else 100


def _user_system_faults(pid: int) -> Optional[tuple[float, float, int]]:
    """The process's CPU seconds in its own code and in the kernel, and its minor page faults (pages
    the kernel had to map in, zeroed, on first touch), all threads together and cumulative:
    /proc/PID/stat's utime, stime and minflt. Faults and kernel time are how an allocator that
    hands memory back to the kernel and asks for it again shows (allocator-page-churn)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()  # the command name may hold spaces and parentheses
    try:
        # After the name: state(3) ppid pgrp session tty_nr tpgid flags minflt(10) cminflt majflt cmajflt
        # utime(14) stime(15), counted from 1 as proc(5) counts them.
        minflt, utime, stime = int(fields[7]), int(fields[11]), int(fields[12])
    except (IndexError, ValueError):
        return None
    return utime / _TICKS_PER_S, stime / _TICKS_PER_S, minflt


def _cmdline(proc: psutil.Process) -> list[str]:
    try:
        return proc.cmdline()
    except (psutil.AccessDenied, OSError):
        return []


class ProcessTreeSampler:
    """CPU, RSS, reads and threads of the root process and all its descendants.

    Each process gets its own series, kept from discovery until it ends
    (DataLoader workers come and go every epoch). The tree is walked again
    every ``TREE_REFRESH_S`` seconds; the ``psutil.Process`` objects are kept
    between samples because ``cpu_percent`` measures since the previous call.
    When the root process ends, process sampling stops for good.
    """

    def __init__(self, root_pid: int, lock: threading.Lock, exclude: frozenset[int] = frozenset()) -> None:
        self._lock = lock
        self._root_pid = root_pid
        self._exclude = exclude  # processes of the tree that are not the run's (a sampling helper)
        self._tracked: list[_Tracked] = []
        self._live: dict[int, _Tracked] = {}
        self._last_refresh: Optional[float] = None
        self.pids: frozenset[int] = frozenset()  # read by the GPU thread
        self.root_alive = True
        try:
            self._root = psutil.Process(root_pid)
            self._root_exe = self._root.exe()
        except _GONE:
            self._root, self._root_exe = None, None
            self.root_alive = False
        except (psutil.AccessDenied, OSError):
            self._root_exe = None

    def refresh(self, force: bool = False) -> None:
        """Walk the tree again if it is due; new processes are primed, not sampled yet."""
        if not self.root_alive:
            return
        now = time.monotonic()
        if not force and self._last_refresh is not None and now - self._last_refresh < TREE_REFRESH_S:
            return
        self._last_refresh = now
        try:
            if self._root.status() == psutil.STATUS_ZOMBIE:
                raise psutil.ZombieProcess(self._root_pid)
            members = [self._root, *self._root.children(recursive=True)]
        except _GONE:
            self._root_ended()
            return
        except psutil.Error:
            return
        new = [p for p in members if p.pid not in self._exclude and self._is_new(p)]
        if new:
            self._add(new)
        self.pids = frozenset(self._live)

    def _is_new(self, proc: psutil.Process) -> bool:
        known = self._live.get(proc.pid)
        return known is None or known.proc != proc  # != compares pid and creation time

    def _add(self, new: list[psutil.Process]) -> None:
        cmdlines = {p.pid: _cmdline(p) for p in new}
        joined = {pid: " ".join(c)[:CMDLINE_MAX] for pid, c in cmdlines.items()}
        known = {pid: tr.cmdline for pid, tr in self._live.items()}
        for proc in new:
            try:
                proc.cpu_percent(None)  # the baseline for the next sample
                ppid = proc.ppid()
            except _GONE:
                continue
            except psutil.Error:
                ppid = None
            parent_cmdline = joined.get(ppid) or known.get(ppid, "")
            cmd = cmdlines[proc.pid]
            role = classify_role(
                proc.pid,
                self._root_pid,
                joined[proc.pid],
                _is_python(proc, cmd, self._root_exe),
                parent_cmdline,
            )
            old = self._live.get(proc.pid)
            if old is not None:  # the pid was reused by a new process
                old.ended = True
            tracked = _Tracked(proc=proc, role=role, cmdline=joined[proc.pid])
            with self._lock:
                self._tracked.append(tracked)
            self._live[proc.pid] = tracked

    def _root_ended(self) -> None:
        self.root_alive = False
        for tracked in self._live.values():
            tracked.ended = True
        self._live.clear()
        self.pids = frozenset()

    def sample(self, t: float) -> int:
        """Sample every live process once; returns how many were stored."""
        if not self.root_alive:
            return 0
        # processes found by this refresh were just primed: no interval to measure yet
        primed_before = list(self._live.values())
        self.refresh()
        stored = 0
        for tracked in primed_before:
            if tracked.ended:
                continue
            values = self._read(tracked)
            if values is None:
                continue
            with self._lock:
                self._store(tracked, _round_t(t), values)
            stored += 1
        gone = [pid for pid, tr in self._live.items() if tr.ended]
        for pid in gone:
            del self._live[pid]
        if gone:
            self.pids = frozenset(self._live)
        if self._root_pid in gone:
            self._root_ended()
        return stored

    def _read(self, tracked: _Tracked):
        proc = tracked.proc
        try:
            with proc.oneshot():
                if proc.status() == psutil.STATUS_ZOMBIE:
                    raise psutil.ZombieProcess(proc.pid)
                cpu = proc.cpu_percent(None)
                rss = proc.memory_info().rss
                threads = proc.num_threads()
                io = self._read_io(tracked)
        except _GONE:
            tracked.ended = True
            return None
        except psutil.Error:  # AccessDenied on one read: skip this sample of this process
            return None
        wait = None
        if tracked.waits is not False:
            wait = _cpu_wait(proc.pid)
            tracked.waits = wait is not None
        kernel = None
        if tracked.kernel is not False:
            kernel = _user_system_faults(proc.pid)
            tracked.kernel = kernel is not None
        return round(cpu, 1), int(rss), int(threads), io, wait, kernel

    @staticmethod
    def _read_io(tracked: _Tracked) -> Optional[tuple[int, int]]:
        if tracked.io is False:
            return None
        try:
            counters = tracked.proc.io_counters()
            io = (int(counters.read_bytes), int(getattr(counters, "read_chars", 0)))
        except _GONE:
            raise
        except (psutil.AccessDenied, NotImplementedError, AttributeError, OSError):
            if tracked.io is None:  # unreadable from the start: leave the columns empty
                tracked.io = False
                return None
            return tracked.last_io  # a one-off failure: the counters did not move
        tracked.io = True
        tracked.last_io = io
        return io

    @staticmethod
    def _store(tracked: _Tracked, t: float, values) -> None:
        cpu, rss, threads, io, wait, kernel = values
        tracked.t.append(t)
        tracked.cpu.append(cpu)
        tracked.rss.append(rss)
        tracked.threads.append(threads)
        if io is not None:
            tracked.read_bytes.append(io[0])
            tracked.read_chars.append(io[1])
        if wait is not None:
            tracked.cpu_wait.append(round(wait, 6))
        if kernel is not None:
            tracked.cpu_user.append(kernel[0])
            tracked.cpu_system.append(kernel[1])
            tracked.minor_faults.append(kernel[2])

    def result(self) -> tuple[ProcessSeries, ...]:
        """Every process seen, in order of discovery; the caller holds the lock."""
        return tuple(tr.series() for tr in self._tracked)
