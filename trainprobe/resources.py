"""Where the rule files and templates are, in a checkout or an installed wheel."""

from __future__ import annotations

from pathlib import Path

__all__ = ["rules_dir", "templates_dir"]

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
