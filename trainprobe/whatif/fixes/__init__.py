"""The what-if's fixes: one module per fix, found here by their ``FIX``.

A fix's module holds everything about it (see :mod:`.base`): its id, how it
is planned, whether it only helps on a GPU, whether it changes the numerics,
how it is applied in the script's process, or how to try it by hand. Adding
a fix is adding a module to this package (and its test); rules name it by id
in ``fix_id``.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import GENERIC_BY_HAND, Candidate, Fix, Injector, PlanContext

__all__ = ["REGISTRY", "get", "Candidate", "Fix", "Injector", "PlanContext", "GENERIC_BY_HAND", "RECORD_LOSS"]

RECORD_LOSS = "record_loss"  # not a fix: asks the child to record the loss (baseline trials too)


def _discover() -> dict[str, Fix]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name == "base":
            continue
        fix = getattr(importlib.import_module(f"{__name__}.{info.name}"), "FIX", None)
        if isinstance(fix, Fix):
            found.append(fix)
    # Registry order is the order injectors act in (num_workers before the settings that need workers).
    return {fix.id: fix for fix in sorted(found, key=lambda f: (f.order, f.id))}


REGISTRY: dict[str, Fix] = _discover()


def get(fix_id: str | None) -> Fix | None:
    return REGISTRY.get(fix_id or "")
