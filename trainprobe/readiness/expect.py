"""The course's requirements (``--expect FILE``), read from TOML.

Example (see sample_scripts/course-expect.toml)::

    [course]
    name = "Deep Learning 101"

    [require]
    gpu = true
    gpu_memory_gb = 8
    bf16 = true
    images_per_second = 500
    torch_min = "2.4"

Every key under ``[require]`` overrides a default threshold and makes its item
required: a required item that is missing or below the bar fails the check.
The keys, and the item that reads each, are the items' own
(:data:`.items.REQUIREMENTS`); a key that no item reads is refused.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Optional

from ..jsonio import JsonMixin
from .items import REQUIREMENTS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Expectations", "ExpectError", "load_expectations", "parse_expectations"]


class ExpectError(ValueError):
    """The expect file cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Expectations(JsonMixin):
    """A course's ``[require]`` values by key, checked against the items that read them."""

    course: str = ""
    source: Optional[str] = None
    require: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        where = self.source or "<expect>"
        unknown = sorted(set(self.require) - set(REQUIREMENTS))
        if unknown:
            raise ExpectError(f"{where}: unknown requirement(s) {unknown}; "
                              f"valid keys: {', '.join(sorted(REQUIREMENTS))}")
        try:
            parsed = {k: REQUIREMENTS[k][1].parse(v) for k, v in self.require.items()}
        except ValueError as exc:
            raise ExpectError(f"{where}: {exc}") from None
        object.__setattr__(self, "require", parsed)

    def get(self, key: str) -> Any:
        """The course's value for a requirement key, or None when it sets none."""
        if key not in REQUIREMENTS:
            raise KeyError(f"no readiness item reads the requirement {key!r}")
        return self.require.get(key)

    def required(self) -> dict[str, Any]:
        """The requirement keys the file set, with their values."""
        return dict(self.require)

    def required_items(self) -> set[str]:
        """The keys of the items the course requires."""
        return {REQUIREMENTS[k][0].key for k in self.require}


def parse_expectations(data: dict[str, Any], source: str = "<expect>") -> Expectations:
    unknown_tables = set(data) - {"course", "require"}
    if unknown_tables:
        raise ExpectError(f"{source}: unknown table(s) {sorted(unknown_tables)}; "
                          "use [course] (name) and [require]")
    course = data.get("course", {})
    require = data.get("require", {})
    if not isinstance(course, dict) or not isinstance(require, dict):
        raise ExpectError(f"{source}: [course] and [require] must be tables")
    return Expectations(course=str(course.get("name", "")), source=source, require=require)


def load_expectations(path: str) -> Expectations:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ExpectError(f"expect file not found: {path}") from None
    except OSError as exc:
        raise ExpectError(f"cannot read expect file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ExpectError(f"{path} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ExpectError(f"{path} is not a text file (a TOML file is UTF-8 text; byte 0x{exc.object[exc.start]:02x} "
                          f"at offset {exc.start} is not)") from None
    return parse_expectations(data, path)
