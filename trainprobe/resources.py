"""Where the rule files and templates are, in a checkout or an installed wheel, and where trainprobe keeps
what it can reuse between runs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

__all__ = ["rules_dir", "templates_dir", "cache_folder"]

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    # An installed wheel carries them in trainprobe/_data/ (see pyproject.toml);
    # a checkout (or an editable install) has them beside the package.
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"trainprobe's {name}/ folder is missing (looked in {_PACKAGE / '_data'} "
        f"and {_PACKAGE.parent}); reinstall trainprobe"
    )


def rules_dir() -> Path:
    return _find("rules")


def templates_dir() -> Path:
    return _find("templates")


def cache_folder() -> Optional[Path]:
    """trainprobe's cache folder (``$XDG_CACHE_HOME/trainprobe``, else ``~/.cache/trainprobe``), or None
    when ``TRAINPROBE_NO_CACHE`` turns caching off. What is kept there only saves time: deleting it is
    always safe."""
    if os.environ.get("TRAINPROBE_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "trainprobe"
