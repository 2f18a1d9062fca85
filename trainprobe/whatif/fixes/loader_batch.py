"""Changing the batch size a DataLoader is built with: the what-if's batch fixes share this.

A fix that changes the batch acts when each loader is built (``Injector.loader_arguments``: the
arguments by name, changed in place), because ``DataLoader.__setattr__`` refuses ``batch_size``
after ``__init__``. Only a loader given ``batch_size`` as a number can be changed; one built with
a ``batch_sampler`` (or ``batch_size=None``) keeps its batches, and the caller says so.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["scale_batch_size"]


def scale_batch_size(arguments: dict, factor: float) -> Optional[str]:
    """Multiply the loader's ``batch_size`` by ``factor`` (at least 1 sample); what changed ("batch_size 8 -> 4"),
    or None when the loader's batch size is not a number it was given."""
    if arguments.get("batch_sampler") is not None:
        return None
    size = arguments.get("batch_size", 1)  # DataLoader's own default is 1
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        return None
    new = max(1, int(size * factor))
    if new == size:
        return None
    arguments["batch_size"] = new
    return f"DataLoader batch_size {size} -> {new}"
