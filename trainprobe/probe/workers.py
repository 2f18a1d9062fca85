"""What DataLoader workers spend their time on.

Each worker times its fetches (``__getitem__`` for every sample, then
``collate_fn``) and writes cumulative figures to ``<out>/workers/<pid>.jsonl``
about once a second, so a killed run keeps them. While the main process holds
its cProfile window it creates a flag file; workers profile their fetches while
the flag exists and dump the stats beside their figures, where the parent
summarizes them.

The patch is made in each worker, by :class:`WorkerInit` (picklable,
importable) from ``worker_init_fn`` before the worker fetches anything, under
fork, spawn and forkserver alike. The main process is never patched: with
num_workers=0 the loop's data wait is the fetch, and a wrapper there would
only add to every step.
"""

from __future__ import annotations

import cProfile
import json
import os
import time
from typing import Any, Callable, Optional

from .onethread import keep_to_this_thread

__all__ = ["install_fetch_timing", "WorkerInit", "flush_stats", "FLAG_NAME"]

FLAG_NAME = "cprofile.on"
_FLUSH_EVERY = 1.0  # seconds

_state: dict[str, Any] = {}


def _fetcher_classes():
    from torch.utils.data._utils import fetch

    return (fetch._MapDatasetFetcher, fetch._IterableDatasetFetcher)


def _timed_collate(collate: Callable, stats: dict) -> Callable:
    def collate_and_time(data):
        start = time.monotonic()
        try:
            return collate(data)
        finally:
            stats["collate"] += time.monotonic() - start

    collate_and_time.__trainprobe__ = True  # type: ignore[attr-defined]
    return collate_and_time


def _wrap_fetch(original: Callable) -> Callable:
    def fetch(self, possibly_batched_index):
        stats = _state.get("stats")
        if stats is None:
            return original(self, possibly_batched_index)
        if getattr(self, "collate_fn", None) is not None and not getattr(self.collate_fn, "__trainprobe__", False):
            self.collate_fn = _timed_collate(self.collate_fn, stats)
        _maybe_profile()
        collate_before = stats["collate"]
        start = time.monotonic()
        try:
            return original(self, possibly_batched_index)
        finally:
            end = time.monotonic()
            elapsed = end - start
            stats["batches"] += 1
            stats["fetch"] += elapsed
            stats["getitem"] += elapsed - (stats["collate"] - collate_before)
            if stats["first_fetch_at"] is None:
                stats["first_fetch_at"] = start - _state["t0"]
            stats["last_fetch_at"] = end - _state["t0"]
            if end - _state["last_flush"] > _FLUSH_EVERY:
                flush_stats()

    fetch.__trainprobe_original__ = original  # type: ignore[attr-defined]
    return fetch


def _maybe_profile() -> None:
    """Profile fetches while the main process's cProfile window is open."""
    flag_on = os.path.exists(_state["flag"])
    profiler: Optional[cProfile.Profile] = _state.get("profiler")
    if flag_on and profiler is None and not _state.get("profiled"):
        profiler = cProfile.Profile()
        _state["profiler"] = profiler
        _state["profile_start"] = time.monotonic()
        profiler.enable()
        keep_to_this_thread(profiler)  # a worker's pin or prefetch threads stay out of its fetches' profile
    elif not flag_on and profiler is not None:
        _stop_profile()


def _stop_profile() -> None:
    profiler = _state.pop("profiler", None)
    if profiler is None:
        return
    profiler.disable()
    _state["profiled"] = True  # one window per worker is enough
    _state["stats"]["profiled_seconds"] = time.monotonic() - _state["profile_start"]
    try:
        profiler.dump_stats(os.path.join(_state["dir"], f"{os.getpid()}.pstats"))
    except OSError:
        pass


def install_fetch_timing(out_dir: str, t0: float, worker_id: int, loader_id: int = 0) -> None:
    """Time fetches in this process; safe to call again (e.g. in a forked worker)."""
    worker_dir = os.path.join(out_dir, "workers")
    os.makedirs(worker_dir, exist_ok=True)
    _state.update(
        dir=worker_dir,
        flag=os.path.join(out_dir, FLAG_NAME),
        t0=t0,
        last_flush=time.monotonic(),
        pid=os.getpid(),
        profiled=False,
        stats=dict(
            pid=os.getpid(), worker_id=worker_id, loader_id=loader_id, batches=0, fetch=0.0,
            getitem=0.0, collate=0.0, first_fetch_at=None, last_fetch_at=None, profiled_seconds=0.0,
        ),
    )
    _state.pop("profiler", None)
    for cls in _fetcher_classes():
        if not hasattr(cls.fetch, "__trainprobe_original__"):
            cls.fetch = _wrap_fetch(cls.fetch)


def flush_stats() -> None:
    stats = _state.get("stats")
    if not stats or _state.get("pid") != os.getpid() or not stats["batches"]:
        return
    _state["last_flush"] = time.monotonic()
    path = os.path.join(_state["dir"], f"{os.getpid()}.jsonl")
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(stats) + "\n")
    except OSError:
        pass


def _worker_exit() -> None:
    _stop_profile()
    flush_stats()


def _leave_census_mode() -> None:
    """A worker forked while the main process counted a step inherits its dispatch mode (fork copies
    the thread's state): take it off, or every op the worker runs would go through the counter."""
    import sys

    census = sys.modules.get("trainprobe.probe.census")
    if census is not None:
        census.leave_inherited_mode()


class WorkerInit:
    """Wraps the loader's ``worker_init_fn``: instruments the worker, then calls the user's."""

    def __init__(self, user_fn: Optional[Callable], out_dir: str, t0: float, loader_id: int) -> None:
        self.user_fn = user_fn
        self.out_dir = out_dir
        self.t0 = t0
        self.loader_id = loader_id

    def __call__(self, worker_id: int) -> None:
        try:
            from multiprocessing import util

            _leave_census_mode()
            install_fetch_timing(self.out_dir, self.t0, worker_id, self.loader_id)
            # atexit is unreliable in forked workers; Finalize runs on their normal exit.
            util.Finalize(None, _worker_exit, exitpriority=100)
        except Exception:
            pass  # never break the user's data loading for a measurement
        if self.user_fn is not None:
            self.user_fn(worker_id)
