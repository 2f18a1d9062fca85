"""Secrets in the script's arguments stay out of what trainprobe saves.

``train.py --api-key sk-... --hf_token=hf_... WANDB_API_KEY=...``: run.json, the
report and the terminal show these values as ``<redacted>`` unless the user
passes ``--keep-args``. An argument is secret when the last word of its name
says so (``--api-key``, ``--db-password``, ``--hf_token``, ``CLIENT_SECRET=``);
``--max-tokens`` or ``--token-limit`` are not. The script itself always gets
the real values, and ``diagnose --verify`` re-runs with them from memory.
"""

from __future__ import annotations

import re
from typing import Sequence

__all__ = ["REDACTED", "redact_args", "is_secret_name"]

REDACTED = "<redacted>"

_SECRET_WORDS = frozenset({
    "key", "apikey", "token", "password", "passwd", "pwd", "secret", "credential", "credentials", "auth",
    "passphrase",
})
_OPTION = re.compile(r"^--?([A-Za-z][\w.-]*)(?:=(.*))?$", re.S)
_ASSIGNMENT = re.compile(r"^([A-Za-z_][\w.-]*)=(.*)$", re.S)


def is_secret_name(name: str) -> bool:
    words = [w for w in re.split(r"[-_.]+", name.lower()) if w]
    return bool(words) and words[-1] in _SECRET_WORDS


def redact_args(args: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``args`` with secret values replaced, and the names whose values were."""
    out: list[str] = []
    names: list[str] = []
    hide_next = None
    for arg in args:
        if hide_next is not None:
            takes_value = not (arg.startswith("-") and _OPTION.match(arg))  # "--token --epochs 3": no value
            if takes_value:
                out.append(REDACTED)
                names.append(hide_next)
                hide_next = None
                continue
            hide_next = None
        option = _OPTION.match(arg)
        if option and is_secret_name(option.group(1)):
            if option.group(2) is None:
                hide_next = arg  # --token VALUE: the value is the next argument
                out.append(arg)
            else:
                out.append(f"{arg.split('=', 1)[0]}={REDACTED}")
                names.append(arg.split("=", 1)[0])
            continue
        assignment = None if option else _ASSIGNMENT.match(arg)
        if assignment and is_secret_name(assignment.group(1)):
            out.append(f"{assignment.group(1)}={REDACTED}")
            names.append(assignment.group(1))
            continue
        out.append(arg)
    return tuple(out), tuple(names)
