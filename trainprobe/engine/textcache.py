"""What checking the rule texts found, kept between runs in the user's cache folder.

Loading the rule catalog parses and checks ~750 Jinja texts and compiles the ~150 expressions among
them: about a second of every ``trainprobe diagnose``, ``report`` and ``compare``, and the same second
each time. What a check finds for a text (the names it reads; for an expression, its compiled code)
depends only on the text, on the names and options it may use, and on the rule language itself. A file
in ``~/.cache/trainprobe`` (``$XDG_CACHE_HOME``) keeps it under a key made of all of those, with
Python's, Jinja's and trainprobe's versions and the checking code's own bytes, so that no change to any
of them can reuse a stale answer. A text that fails its check is never kept: its error is found again.

The cache only saves time. A missing, unreadable or foreign file means checking again, and a folder
that cannot be written is left alone. ``TRAINPROBE_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Optional

from ..jsonio import write_bytes_atomic
from ..resources import cache_folder

__all__ = ["lookup", "keep", "save", "text_key", "cache_file", "language_digest"]

_FORMAT = 1
_entries: Optional[dict[str, Any]] = None  # loaded on the first lookup
_added = False


def cache_file(language: str) -> Optional[Path]:
    """The file for this rule language (``language``: a digest of what decides a check), or None when
    caching is off."""
    folder = cache_folder()
    return None if folder is None else folder / f"rule-texts-{language[:24]}.marshal"


@lru_cache(maxsize=64)
def _digest(items: tuple[str, ...]) -> str:
    return hashlib.sha256("\0".join(items).encode()).hexdigest()


def text_key(kind: str, source: str, names: Iterable[str], options: Iterable[str]) -> str:
    """The key of one check: the text, what kind of text it is, and the names and options it may use."""
    return _digest((kind, source, _digest(tuple(names)), _digest(tuple(sorted(options)))))


def _load(path: Optional[Path]) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = marshal.load(fh)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


def lookup(language: str, key: str) -> Optional[Any]:
    global _entries
    if _entries is None:
        _entries = _load(cache_file(language))
    return _entries.get(key)


def keep(key: str, value: Any) -> None:
    """Remember a check that passed (``value`` must be marshal-able: strings, tuples, code)."""
    global _entries, _added
    if _entries is None:
        _entries = {}
    _entries[key] = value
    _added = True


def save(language: str) -> None:
    """Write what was added since the file was read; atomically, so a run reading it beside us sees
    the old file or the new one, never half of one."""
    global _added
    path = cache_file(language)
    if not _added or path is None or _entries is None:
        return
    try:
        write_bytes_atomic(path, marshal.dumps(_entries))
    except OSError:
        return  # a read-only or full cache folder: the next run checks again
    _added = False


def language_digest(*parts: str) -> str:
    """The digest of what decides every check: the given parts (the language's names and the checking
    code), and the versions of Python (marshal's format follows it) and of this cache's format."""
    return _digest((str(_FORMAT), sys.version, *parts))
