"""Summarize cProfile dumps (main process and DataLoader workers) into Hotspots.

Done in the parent, after the run, so none of this costs the training time.
"""

from __future__ import annotations

import glob
import os
import pstats
from typing import Iterable, Optional

from ..record import Availability, FuncStat, Hotspots
from .callgraph import analyze
from .sites import UserCode
from .frames import is_trainprobe

__all__ = ["summarize_hotspots", "categorize"]

_TOP_SELF = 20
_TOP_USER = 12
_TOP_WORKER = 20


def categorize(path: str, function: str) -> str:
    """What kind of work a function is, for the worker breakdown.

    ``idle`` is a worker waiting for its next index (poll, lock): not work,
    and left out of the shares.
    """
    p = path.replace("\\", "/").lower()
    f = function.lower()
    if "select.poll" in f or "select.select" in f or "epoll" in f or "_thread.lock" in f \
            or "multiprocessing/connection.py" in p or "multiprocessing/queues.py" in p:
        return "idle"
    if "tokeniz" in f or "/tokenizers/" in p or "/tokenization_" in p or "sentencepiece" in p \
            or "sentencepiece" in f or "tiktoken" in p or "tiktoken" in f:
        return "tokenize"  # before decode: a tokenizer's decode() is not an image's
    if "imagingdecoder" in f or "decode" in f or "jpeg" in f or "imagefile" in p or "plugin" in p \
            or "torchvision/io/" in p or ("/pil/" in p and ("open" in f or "load" in f)):
        return "decode"
    if "imagingcore" in f or "torchvision/transforms" in p or "/transforms" in p or "augment" in f \
            or "/pil/" in p:
        return "transform"
    if "collate" in f or "collate" in p:
        return "collate"
    if "time.sleep" in f:
        return "sleep"  # waiting, but on nothing measured: not a file read (storage is blamed on reads)
    if "posix.stat" in f or "posix.lstat" in f:
        # File lookups, not reads: a worker's imports make dozens of them at start-up.
        return "metadata"
    if "io.open" in f or "_io." in f or "posix.read" in f \
            or "readinto" in f or "torchvision/datasets/folder.py" in p:
        return "io"
    if "/torch/" in p or "torch." in f or "torch._c" in f:
        return "torch"
    return "python"


# trainprobe's own wrappers (DataLoader, backward, fetch) sit between the script and torch;
# when trainprobe lives in a checkout beside the script they would pass for the user's code.


def _is_user(path: str, user_dirs: tuple[str, ...]) -> bool:
    if not path or path == "~" or path.startswith("<") or "site-packages" in path or "/lib/python" in path:
        return False
    if is_trainprobe(path):
        return False
    full = os.path.abspath(path)
    return any(full.startswith(d.rstrip(os.sep) + os.sep) for d in user_dirs)


def _rows(stats: pstats.Stats, user_dirs: tuple[str, ...]) -> list[FuncStat]:
    rows = []
    for (path, line, func), (_cc, calls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append(
            FuncStat(
                file="" if path == "~" else path,
                line=line,
                function=func,
                calls=calls,
                self_time=tottime,
                cumulative=cumtime,
                user_code=_is_user(path, user_dirs),
                category=_category_of((path, line, func), user_dirs),
            )
        )
    return rows


def _load(paths: Iterable[str]) -> Optional[pstats.Stats]:
    merged = None
    for path in paths:
        try:
            if merged is None:
                merged = pstats.Stats(path)
            else:
                merged.add(path)
        except Exception:
            continue
    return merged


def _category_of(key: tuple, user_dirs: tuple[str, ...]) -> str:
    path, _line, func = key
    return "dataset" if _is_user(path, user_dirs) else categorize(path, func)


def _category_shares(stats: pstats.Stats, user_dirs: tuple[str, ...]) -> dict[str, float]:
    """Share of the workers' busy time per kind of work.

    Time is charged where it is spent, except that generic work (a torch op,
    a builtin such as sum) is charged to the kind of its callers: a conv2d
    called by a torchvision transform is augmentation, not "torch".
    """
    table = stats.stats  # type: ignore[attr-defined]
    totals: dict[str, float] = {}
    for key, (_cc, _nc, tottime, _ct, callers) in table.items():
        own = _category_of(key, user_dirs)
        if own == "idle":
            continue
        if own in ("torch", "python") and callers:
            by_caller = {}
            for caller, info in callers.items():
                kind = _category_of(caller, user_dirs)
                by_caller[kind] = by_caller.get(kind, 0.0) + float(info[2])  # tottime via this caller
            spread = sum(by_caller.values())
            if spread > 0:
                for kind, part in by_caller.items():
                    kind = own if kind in ("idle", "torch", "python") else kind
                    totals[kind] = totals.get(kind, 0.0) + tottime * part / spread
                continue
        totals[own] = totals.get(own, 0.0) + tottime
    busy = sum(totals.values())
    return {k: v / busy for k, v in totals.items()} if busy > 0 else {}


def summarize_hotspots(out_dir: str, window: dict, user_dirs: tuple[str, ...], framework: str = "",
                       loop_at: Optional[str] = None) -> Hotspots:
    """``framework`` names the library that ran the loop ("" for the script's own loop) and ``loop_at``
    the loop's line: the call graph's parts (probe/callgraph.py) charge their code by them."""
    main_rows: tuple[FuncStat, ...] = ()
    main_categories: dict[str, float] = {}
    graph = None
    availability = Availability(False, window.get("error") or "the script ended before the Python profile window")
    stats_path = window.get("stats_path")
    if stats_path and os.path.exists(stats_path):
        stats = _load([stats_path])
        if stats is not None:
            rows = _rows(stats, user_dirs)
            by_self = sorted(rows, key=lambda r: r.self_time, reverse=True)[:_TOP_SELF]
            user = sorted((r for r in rows if r.user_code), key=lambda r: r.cumulative, reverse=True)[:_TOP_USER]
            seen = {(r.file, r.line, r.function) for r in by_self}
            main_rows = tuple(by_self) + tuple(r for r in user if (r.file, r.line, r.function) not in seen)
            main_categories = _category_shares(stats, user_dirs)
            availability = Availability(True)
            try:
                graph = analyze(stats.stats, float(window.get("wall") or 0.0),  # type: ignore[attr-defined]
                                UserCode(user_dirs), framework, loop_at, categorize)
            except Exception:  # pylint: disable=broad-except  # the flat figures still stand without it
                graph = None

    worker_files = sorted(glob.glob(os.path.join(out_dir, "workers", "*.pstats")))
    worker_rows: tuple[FuncStat, ...] = ()
    categories: dict[str, float] = {}
    if worker_files:
        stats = _load(worker_files)
        if stats is not None:
            rows = _rows(stats, user_dirs)
            categories = _category_shares(stats, user_dirs)
            worker_rows = tuple(sorted(rows, key=lambda r: r.self_time, reverse=True)[:_TOP_WORKER])
    return Hotspots(
        availability=availability,
        window=float(window.get("wall") or 0.0),
        steps=int(window.get("steps") or 0),
        main=main_rows,
        workers=worker_rows,
        worker_window=0.0,
        worker_categories=categories,
        main_categories=main_categories,
        phase_seconds=graph.phase_seconds if graph else {},
        loop_parts=graph.loop_parts if graph else (),
        data_parts=graph.data_parts if graph else (),
        creations=graph.creations if graph else (),
    )
