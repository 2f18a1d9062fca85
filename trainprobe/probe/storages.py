"""Following the tensor storages of a counting step: what is alive, when, and who made it.

A storage is followed from the moment an op creates it (or from the start, for what the model
and optimizer already hold) until Python frees it, through a ``weakref.finalize`` on the
storage object (torch keeps one Python object per storage, so the finalizer fires when the
last tensor on it dies). This is the step's own memory, counted from its tensors on any device:
never the process's RSS, which holds Python, libraries and the allocator's free lists too.

Each storage remembers the step and phase it was made in, the repeated block of the model whose
forward made it (for activation checkpointing) and the first line of the user's code on the
stack (for leaks).
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass
from typing import Callable, Optional

__all__ = ["Born", "StorageLedger", "user_site", "user_sites"]

PERSISTENT = -1  # the step of what the model and optimizers held before the count began


def _package_dir(module_name: str) -> Optional[str]:
    module = sys.modules.get(module_name)
    path = getattr(module, "__file__", None)
    if not path:
        return None
    import os

    return os.path.dirname(os.path.realpath(path)) + os.sep


_SKIPPED: Optional[tuple[str, ...]] = None


def _skipped_dirs() -> tuple[str, ...]:
    """torch's and trainprobe's own folders, by where the packages really are: a user script in a
    folder that happens to be named torch or trainprobe is still the user's."""
    global _SKIPPED
    if _SKIPPED is None:
        _SKIPPED = tuple(d for d in (_package_dir("torch"), _package_dir("trainprobe")) if d)
    return _SKIPPED


def user_site(depth: int = 2) -> Optional[str]:
    """"file:line" of the innermost frame outside torch and trainprobe, or None (a thread of torch's own)."""
    return user_sites(depth + 1)[0]


def user_sites(depth: int = 2) -> tuple[Optional[str], Optional[str]]:
    """The innermost frame of the user's code on the stack ("file:line": a line of the model's forward)
    and the user's line that called into torch to get there (the loop's ``model(x)``), or None for
    either. A tensor made in ``forward`` and kept by the loop is named by both."""
    import os

    skipped = _skipped_dirs()
    try:
        frame = sys._getframe(depth)  # pylint: disable=protected-access
    except ValueError:
        return None, None
    cache: dict[str, bool] = {}
    inner: Optional[str] = None
    through_torch = False
    while frame is not None:
        name = frame.f_code.co_filename
        inside = cache.get(name)
        if inside is None:
            real = os.path.realpath(name) if not name.startswith("<") else name
            # "<string>": the child's own bootstrap (python -c), below every script it runs.
            inside = cache[name] = real.startswith(skipped) or name.startswith("<frozen") or name == "<string>"
        if not inside:
            here = f"{name}:{frame.f_lineno}"
            if inner is None:
                inner = here
            elif through_torch:
                return inner, here
        elif inner is not None:
            through_torch = True
        frame = frame.f_back
    return inner, None


@dataclass
class Born:
    """A followed storage."""

    nbytes: int
    step: int  # the counted step it was made in (PERSISTENT: held before the count)
    phase: str
    block: Optional[int] = None  # index into the ledger's blocks, for storages a block's forward made
    site: Optional[str] = None
    caller: Optional[str] = None  # the user's line that called into torch on the way to ``site``
    category: str = "step"  # step | parameters | buffers | gradients | optimizer_state


class StorageLedger:
    """Live bytes of the followed storages, and each one's story."""

    def __init__(self) -> None:
        self.alive: dict[int, Born] = {}  # id(storage) -> its entry while alive
        self.live = 0  # followed bytes alive now
        self.on_free: Optional[Callable[[Born], None]] = None

    def follow(self, storage: object, entry: Born) -> bool:
        """Start following ``storage``; False when it is already followed (or cannot be)."""
        key = id(storage)
        if key in self.alive:
            return False
        try:
            weakref.finalize(storage, self._freed, key)
        except TypeError:  # a storage type without weak references: not followed
            return False
        self.alive[key] = entry
        self.live += entry.nbytes
        return True

    def entry(self, storage: object) -> Optional[Born]:
        return self.alive.get(id(storage))

    def _freed(self, key: int) -> None:
        entry = self.alive.pop(key, None)
        if entry is None:
            return
        self.live -= entry.nbytes
        if self.on_free is not None:
            self.on_free(entry)

    def total(self, want: Callable[[Born], bool]) -> int:
        return sum(e.nbytes for e in list(self.alive.values()) if want(e))
