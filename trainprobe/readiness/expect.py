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
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from typing import Any, Optional

from ..jsonio import JsonMixin

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Expectations", "ExpectError", "load_expectations", "parse_expectations",
           "parse_version", "REQUIREMENT_ITEMS"]


class ExpectError(ValueError):
    """The expect file cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Expectations(JsonMixin):
    course: str = ""
    source: Optional[str] = None
    gpu: Optional[bool] = None  # a CUDA GPU visible to torch
    gpu_memory_gb: Optional[float] = None
    bf16: Optional[bool] = None
    tf32: Optional[bool] = None
    compute_capability: Optional[str] = None  # minimum, "7.5"
    python_min: Optional[str] = None
    torch_min: Optional[str] = None
    torchvision_min: Optional[str] = None
    cores: Optional[int] = None
    ram_gb: Optional[float] = None
    shm_gb: Optional[float] = None
    disk_free_gb: Optional[float] = None
    ssd: Optional[bool] = None  # data on local, non-rotational storage
    disk_read_mb_s: Optional[float] = None
    jpeg_decode_per_core: Optional[float] = None
    images_per_second: Optional[float] = None  # the reference training benchmark

    def required(self) -> dict[str, Any]:
        """The requirement keys the file set, with their values."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in ("course", "source") and getattr(self, f.name) is not None}


# Which checklist item each requirement makes required.
REQUIREMENT_ITEMS = {
    "gpu": "gpu", "gpu_memory_gb": "gpu_memory", "bf16": "gpu_features", "tf32": "gpu_features",
    "compute_capability": "gpu_features", "python_min": "python", "torch_min": "torch",
    "torchvision_min": "torchvision", "cores": "cpu_cores", "ram_gb": "ram", "shm_gb": "shm",
    "disk_free_gb": "disk_free", "ssd": "disk_type", "disk_read_mb_s": "disk_read",
    "jpeg_decode_per_core": "jpeg_decode", "images_per_second": "train_benchmark",
}

_TYPES = {"gpu": bool, "bf16": bool, "tf32": bool, "ssd": bool, "cores": int,
          "compute_capability": str, "python_min": str, "torch_min": str, "torchvision_min": str}


def parse_version(text: str) -> Optional[tuple[int, ...]]:
    """"2.15.0+cu128" -> (2, 15, 0); None when it has no leading number."""
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", str(text))
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def _check_value(key: str, value: Any, where: str) -> Any:
    kind = _TYPES.get(key, float)
    if kind is bool:
        if not isinstance(value, bool):
            raise ExpectError(f"{where}: {key} must be true or false, not {value!r}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ExpectError(f"{where}: {key} must be a whole number, not {value!r}")
        return value
    if kind is str:
        text = str(value).lstrip(">= ")
        if parse_version(text) is None:
            raise ExpectError(f'{where}: {key} must be a version such as "2.4", not {value!r}')
        return text
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ExpectError(f"{where}: {key} must be a number, not {value!r}")
    return float(value)


def parse_expectations(data: dict[str, Any], source: str = "<expect>") -> Expectations:
    unknown_tables = set(data) - {"course", "require"}
    if unknown_tables:
        raise ExpectError(f"{source}: unknown table(s) {sorted(unknown_tables)}; "
                          "use [course] (name) and [require]")
    course = data.get("course", {})
    require = data.get("require", {})
    if not isinstance(course, dict) or not isinstance(require, dict):
        raise ExpectError(f"{source}: [course] and [require] must be tables")
    valid = sorted(REQUIREMENT_ITEMS)
    unknown = sorted(set(require) - set(valid))
    if unknown:
        raise ExpectError(f"{source}: unknown requirement(s) {unknown}; valid keys: {', '.join(valid)}")
    values = {k: _check_value(k, v, source) for k, v in require.items()}
    return Expectations(course=str(course.get("name", "")), source=source, **values)


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
    return parse_expectations(data, path)
