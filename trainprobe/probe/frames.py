"""Whose code a frame runs: trainprobe's, torch's, or the user's, told by the packages' real folders.

A word in a path is not enough: a clone of trainprobe lives in a folder named
``trainprobe`` (what ``git clone`` makes), and a user's script may sit in a
folder named ``trainprobe`` or ``torch``. Only a file inside the imported
package's own folder is that package's code.
"""

from __future__ import annotations

import functools
import os
from typing import Optional

__all__ = ["TRAINPROBE_DIR", "package_dir", "inside", "is_trainprobe", "is_torch"]

# trainprobe/ itself (this file is trainprobe/probe/frames.py).
TRAINPROBE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def package_dir(module: object) -> Optional[str]:
    """The real folder of an imported package (None for a namespace package or a built-in)."""
    path = getattr(module, "__file__", None)
    return os.path.dirname(os.path.realpath(path)) if path else None


@functools.lru_cache(maxsize=4096)  # a hook may ask about the same few files again and again
def _real(filename: str) -> str:
    return os.path.realpath(filename) if filename and not filename.startswith("<") else filename


def inside(filename: str, folder: Optional[str]) -> bool:
    """Whether ``filename`` (as a code object names it) lies inside ``folder``."""
    if not folder or not filename or filename.startswith("<"):
        return False
    return _real(filename).startswith(folder.rstrip(os.sep) + os.sep)


def is_trainprobe(filename: str) -> bool:
    return inside(filename, TRAINPROBE_DIR)


_TORCH_DIR: list[Optional[str]] = []  # filled on first use: importing torch here would cost every caller


def is_torch(filename: str) -> bool:
    if not _TORCH_DIR:
        import torch

        _TORCH_DIR.append(package_dir(torch))
    return inside(filename, _TORCH_DIR[0])
