"""The checklist's items, one module each, in the order the checklist shows them.

Each module defines ``ITEM`` (:class:`~trainprobe.readiness.item.Item`): key,
title, how it is measured (a quick function or a benchmark in a child
process), how it is graded, and the expect file's ``[require]`` keys it reads.
Collecting, grading and the expect file use this registry only. The registry
finds every module of this package that defines ``ITEM`` and lists them by
``Item.order``: to add an item, write its module (and its test).
"""

from __future__ import annotations

import importlib
import pkgutil

from ..item import NO_GPU_REASON, Item, Requirement
from ..results import MachineFacts, Measurement

__all__ = ["ITEMS", "QUICK", "BENCHMARKS", "BY_KEY", "REQUIREMENTS", "item", "measure", "measure_quick"]

def _discover() -> tuple[Item, ...]:
    found = [getattr(importlib.import_module(f"{__name__}.{info.name}"), "ITEM", None)
             for info in pkgutil.iter_modules(__path__)]
    return tuple(sorted((i for i in found if isinstance(i, Item)), key=lambda i: (i.order, i.key)))


ITEMS: tuple[Item, ...] = _discover()
QUICK = tuple(i for i in ITEMS if i.measure is not None)
BENCHMARKS = tuple(i for i in ITEMS if i.benchmark is not None)
BY_KEY = {i.key: i for i in ITEMS}
# expect-file key -> the item that reads it, and how
REQUIREMENTS: dict[str, tuple[Item, Requirement]] = {r.key: (i, r) for i in ITEMS for r in i.requirements}


def _check_registry() -> None:
    """Fail on import, not at a student's machine, when two items clash or one is half-defined."""
    if len(BY_KEY) != len(ITEMS):
        raise RuntimeError("two readiness items share a key")
    if len(REQUIREMENTS) != sum(len(i.requirements) for i in ITEMS):
        raise RuntimeError("two readiness items read the same expect-file key")
    for i in ITEMS:
        if (i.measure is None) == (i.benchmark is None):
            raise RuntimeError(f"readiness item {i.key!r} needs a measure function or a benchmark (one of them)")


_check_registry()


def item(key: str) -> Item:
    """The item of ``key``; KeyError for an unknown one."""
    return BY_KEY[key]


def measure(i: Item, facts: MachineFacts) -> Measurement:
    """A quick item's measurement; a GPU item without a GPU is skipped with one clear reason."""
    if i.measure is None:
        raise ValueError(f"{i.key} is a benchmark: it runs in a child process (see collect.run_benchmarks)")
    if i.needs_gpu and not facts.has_gpu:
        return i.skipped(NO_GPU_REASON)
    return i.measure(facts)


def measure_quick(facts: MachineFacts) -> list[Measurement]:
    """Every quick item, in order."""
    return [measure(i, facts) for i in QUICK]
