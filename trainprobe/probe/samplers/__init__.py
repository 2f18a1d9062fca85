"""Samplers that watch the run from the parent process while the script runs in a child.

``start_sampling(root_pid, t0)`` starts two daemon threads and returns a
:class:`Sampling`: ``snapshot()`` gives what was sampled so far (for partial
records), ``stop()`` ends the threads and gives everything.

* the host thread samples the machine (psutil) and the process tree of
  ``root_pid`` (the child running the user's script, its DataLoader workers...);
* the GPU thread samples NVML. It is separate because NVML can be slow
  (nvmlInit takes seconds without persistence mode, a PCIe throughput read
  blocks 20 ms) and must not delay the host samples.

Both run on a fixed-rate schedule (tick k at start + k * interval) so the rate
does not drift with the work done per tick; a tick that comes late skips the
slots it missed rather than bursting to catch up. ``t`` values are
``clock() - t0``.

Bounded memory (see :func:`storage_stride`): the first 30 minutes are stored at
the full rate; after that the rate halves every further 30 minutes (each
thread samples only every 2nd, 4th, ... tick) down to one sample per 10 s. At
10 Hz that is at most ~36,000 samples per series over the first ~3.5 hours,
then 360 more per hour. The skipped ticks are not read at all, so the CPU
figures of a stored sample cover the whole time since the previous one.
``Samples.interval`` stays the nominal interval: read the spacing from ``t``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from ...machine import nvml_unavailable
from ...record import Availability, HostSamples, Samples
from .host import HostSampler, ProcessTreeSampler
from .nvml import NvmlSampler, open_sampler

__all__ = ["Sampling", "start_sampling", "storage_stride", "FULL_RATE_S", "MAX_STORED_PERIOD_S"]

FULL_RATE_S = 30 * 60.0  # seconds stored at the full rate, then each further span at half the rate
MAX_STORED_PERIOD_S = 10.0  # the thinning stops at one stored sample per this many seconds
JOIN_TIMEOUT_S = 2.0  # stop() waits at most this long per thread (plus one interval)


def storage_stride(elapsed: float, interval: float) -> int:
    """Store one tick in this many, ``elapsed`` seconds after sampling started."""
    if elapsed < FULL_RATE_S:
        return 1
    doublings = min(int(elapsed // FULL_RATE_S), 30)
    cap = max(1, int(MAX_STORED_PERIOD_S / interval))
    return max(1, min(2**doublings, cap))


class Sampling:
    """The samplers of one run. Create it with :func:`start_sampling`."""

    def __init__(
        self,
        root_pid: int,
        t0: float,
        interval: float,
        clock: Callable[[], float],
        nvml_module: Any,
        exclude_pids: frozenset[int] = frozenset(),
    ) -> None:
        self._root_pid = root_pid
        self._exclude_pids = exclude_pids
        self._t0 = t0
        self._interval = interval
        self._clock = clock
        self._nvml_module = nvml_module
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._cpu_time = {"host": 0.0, "gpu": 0.0}
        self._host: Optional[HostSampler] = None
        self._tree: Optional[ProcessTreeSampler] = None
        self._gpu: Optional[NvmlSampler] = None
        self._host_availability = Availability(False, "host sampling has not started yet")
        self._gpu_availability = nvml_unavailable("NVML has not started yet")
        self._started_at = clock()
        self._final: Optional[Samples] = None
        self._threads = [
            threading.Thread(target=self._host_main, name="trainprobe-host-sampler", daemon=True),
            threading.Thread(target=self._gpu_main, name="trainprobe-gpu-sampler", daemon=True),
        ]

    def _start(self) -> None:
        for thread in self._threads:
            thread.start()

    # -- public --------------------------------------------------------------

    def snapshot(self) -> Samples:
        """A copy of everything sampled so far; safe to call from any thread at any time."""
        if self._final is not None:
            return self._final
        with self._lock:
            return Samples(
                interval=self._interval,
                host=self._host.result() if self._host else HostSamples(),
                host_availability=self._host_availability,
                processes=self._tree.result() if self._tree else (),
                gpus=self._gpu.result() if self._gpu else (),
                gpu_availability=self._gpu_availability,
                sampler_cpu_time=round(sum(self._cpu_time.values()), 6),
            )

    def stop(self) -> Samples:
        """Stop the threads (waiting a bounded time) and return everything; idempotent."""
        if self._final is not None:
            return self._final
        self._stopping.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(JOIN_TIMEOUT_S + self._interval)
        gpu_thread = self._threads[1]
        if gpu_thread.is_alive() and self._gpu is None:
            with self._lock:
                self._gpu_availability = nvml_unavailable(
                    f"NVML did not answer within {JOIN_TIMEOUT_S:g} s of the end of the run"
                )
        final = self.snapshot()
        self._final = final
        return final

    # -- threads -------------------------------------------------------------

    def _t(self) -> float:
        return self._clock() - self._t0

    def _host_main(self) -> None:
        started = time.thread_time()
        host: Optional[HostSampler] = None
        try:
            host = HostSampler(self._lock)
            tree = ProcessTreeSampler(self._root_pid, self._lock, self._exclude_pids)
            tree.refresh(force=True)  # primes cpu_percent of the processes already there
            with self._lock:
                self._host, self._tree = host, tree
                self._host_availability = host.availability

            def tick() -> None:
                t = self._t()
                host.sample(t)
                tree.sample(t)

            self._run_fixed_rate(tick, "host", started)
        except Exception as exc:  # never let a sampler bug end the run; keep what was stored
            with self._lock:
                self._host_availability = Availability(
                    bool(host and host.available),
                    f"host sampling stopped early after an internal error ({type(exc).__name__}: {exc})",
                )
        finally:
            self._cpu_time["host"] = time.thread_time() - started

    def _gpu_main(self) -> None:
        started = time.thread_time()
        sampler: Optional[NvmlSampler] = None
        try:
            sampler, availability = open_sampler(self._lock, self._nvml_module)
            with self._lock:
                self._gpu, self._gpu_availability = sampler, availability
            if sampler is None:
                return

            def tick() -> None:
                tree = self._tree
                sampler.sample(self._t(), tree.pids if tree is not None else frozenset())

            self._run_fixed_rate(tick, "gpu", started)
        except Exception as exc:
            with self._lock:
                self._gpu_availability = Availability(
                    sampler is not None,
                    f"GPU sampling stopped early after an internal error ({type(exc).__name__}: {exc})",
                )
        finally:
            if sampler is not None:
                sampler.close()
            self._cpu_time["gpu"] = time.thread_time() - started

    def _run_fixed_rate(self, tick: Callable[[], None], name: str, cpu_started: float) -> None:
        interval = self._interval
        start = time.monotonic()
        k = 0
        while True:
            self._cpu_time[name] = time.thread_time() - cpu_started
            k += 1
            delay = start + k * interval - time.monotonic()
            if delay < 0:  # late (slow call, busy host): skip the missed slots
                k = int((time.monotonic() - start) / interval) + 1
                delay = start + k * interval - time.monotonic()
            if self._stopping.wait(max(0.0, delay)):
                return
            if k % storage_stride(self._clock() - self._started_at, interval) == 0:
                tick()


def start_sampling(
    root_pid: int,
    t0: float,
    interval: float = 0.1,
    clock: Callable[[], float] = time.monotonic,
    nvml_module: Any = None,
    exclude_pids: frozenset[int] = frozenset(),
) -> Sampling:
    """Start sampling the machine, the process tree of ``root_pid`` and the GPUs.

    ``t0`` is ``clock()`` at launch; samples carry ``t = clock() - t0``.
    ``nvml_module`` replaces ``pynvml`` (tests pass a fake one). ``exclude_pids``: processes of the
    tree that are not the run's (the helper that samples a notebook's kernel from inside its tree).
    """
    if not interval > 0:
        raise ValueError(f"interval must be positive, got {interval!r}")
    sampling = Sampling(root_pid, t0, interval, clock, nvml_module, frozenset(exclude_pids))
    sampling._start()
    return sampling
