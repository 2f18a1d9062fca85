"""What a script's run left in its working folder, set aside so that it can run once more from where it began.

A script run twice in one folder may not run the same way twice: ConvNeXt's ``--auto_resume`` loads the checkpoint
its first run saved, audiolm-pytorch's and muse-maskgit's trainers find their results folder full and wait at a y/n
prompt (test sets 19 and 20). A second run with fitted windows then measures nothing. Setting aside the top-level
entries the runs made in the script's folder (moved, never copied or deleted) gives the next run the folder as the
first one found it, exactly as ``python`` would have run there. Hidden entries (an editor's, a test runner's) are
left alone: other programs make those beside a run. Only entries that did not exist before the first run
move, and only by a rename on the same file system, so that a large checkpoint never costs a copy: what cannot move
stays, and is said.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

__all__ = ["listing", "made_since", "set_aside_made", "bring_back", "SCRIPT_FILES"]

SCRIPT_FILES = "script-folder"  # inside first-run/ or second-run/: what the script made in its own folder
_NEVER = frozenset({"__pycache__"})  # Python's own caches: not the script's state


def listing(folder: Path) -> Optional[frozenset[str]]:
    """The names at the top of ``folder``; None when it cannot be read."""
    try:
        return frozenset(os.listdir(folder))
    except OSError:
        return None


def made_since(folder: Path, before: Optional[frozenset[str]], keep: Path) -> list[str]:
    """The names at the top of ``folder`` that were not there ``before``, other than the one that holds ``keep``
    (trainprobe's own output folder), Python's caches and hidden ones (an editor's or a tool's, made beside the run
    rather than by it: .idea, .pytest_cache); sorted."""
    now = listing(folder)
    if now is None or before is None:
        return []
    try:
        kept = keep.resolve()
    except OSError:
        kept = keep
    made = []
    for name in sorted(now - before - _NEVER):
        if name.startswith("."):
            continue
        path = (folder / name).resolve()
        if path == kept or path in kept.parents:
            continue
        made.append(name)
    return made


def set_aside_made(folder: Path, names: list[str], holding: Path) -> tuple[list[str], list[str]]:
    """Move each of ``names`` from ``folder`` into ``holding`` by a rename: (moved, left where they were)."""
    moved, left = [], []
    try:
        holding.mkdir(parents=True, exist_ok=True)
    except OSError:
        return [], list(names)
    for name in names:
        try:
            os.rename(folder / name, holding / name)
            moved.append(name)
        except OSError:  # another file system, a file in use: it stays, and the note says so
            left.append(name)
    if not moved:
        try:
            holding.rmdir()  # nothing set aside: no empty folder left among trainprobe's files
        except OSError:
            pass
    return moved, left


def bring_back(folder: Path, holding: Path) -> list[str]:
    """Move what ``holding`` holds back into ``folder`` where nothing of the same name stands now: the names that
    could not go back (they stay in ``holding``)."""
    stuck = []
    for item in sorted(holding.iterdir()) if holding.is_dir() else []:
        target = folder / item.name
        try:
            if target.exists():
                raise FileExistsError(target)
            os.rename(item, target)
        except OSError:
            stuck.append(item.name)
    if not stuck:
        try:
            holding.rmdir()
        except OSError:
            pass
    return stuck
