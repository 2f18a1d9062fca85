"""Turn frozen dataclasses into JSON-ready dicts and back.

Every object that passes between trainprobe's stages (run record, facts,
findings, check results) is a frozen dataclass. This module is the one place
that knows how to (de)serialize them, so each stage gets ``save``/``load`` for
free and old records with missing fields still load (fields take their
defaults; unknown keys are ignored, which keeps newer records readable by
older code as far as possible).
"""

from __future__ import annotations

import dataclasses
import errno
import gzip
import json
import math
import os
import tempfile
import types
import typing
from pathlib import Path
from typing import Any, Optional, TypeVar, Union, get_args, get_origin, get_type_hints

__all__ = ["to_dict", "from_dict", "write_json_atomic", "write_text_atomic", "write_bytes_atomic", "write_problem", "JsonMixin"]

T = TypeVar("T")

_HINTS: dict[type, dict[str, Any]] = {}


_SCALARS = (int, str, bool, type(None))


def _scalars(seq: Any) -> Optional[list]:
    """A list copy of a flat sequence of numbers/strings (NaN and inf made None), or None if not flat.

    Time series are long flat tuples; a loop here is several times faster than
    a recursive call per element, which matters for hour-long records.
    """
    out = list(seq)
    isfinite = math.isfinite
    for i, v in enumerate(out):
        kind = type(v)
        if kind is float:
            if not isfinite(v):
                out[i] = None
        elif kind not in _SCALARS:
            return None
    return out


def to_dict(obj: Any) -> Any:
    """Convert dataclasses, tuples and dicts recursively into plain JSON data."""
    kind = type(obj)
    if kind in _SCALARS:
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None  # NaN and inf are not JSON
    if kind in (list, tuple):
        flat = _scalars(obj)
        return flat if flat is not None else [to_dict(v) for v in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_dict(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_dict(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_dict(v) for k, v in obj.items()}
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    return obj


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    return _HINTS[cls]


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        for arg in args:
            try:
                return _convert(arg, value)
            except (TypeError, ValueError, KeyError):
                continue
        return value
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v) for v in value)
        return tuple(_convert(a, v) for a, v in zip(args, value))
    if origin is list:
        (arg,) = get_args(tp) or (Any,)
        return [_convert(arg, v) for v in value]
    if origin is dict:
        args = get_args(tp) or (Any, Any)
        return {k: _convert(args[1], v) for k, v in value.items()}
    if origin is typing.Literal:
        return value
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise TypeError(f"expected an object for {tp.__name__}, got {type(value).__name__}")
        return from_dict(tp, value)
    if tp is float and isinstance(value, int):
        return float(value)
    return value


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    """Build dataclass ``cls`` from plain data, tolerating missing and extra keys. A value of the
    wrong shape raises TypeError naming its field ("RunRecord.outcome: null where an object is
    expected"), so a damaged file is reported where it is damaged."""
    if not isinstance(data, dict):
        raise TypeError(f"expected an object for {cls.__name__}, got {type(data).__name__}")
    hints = _hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        hint, value = hints[f.name], data[f.name]
        if value is None and isinstance(hint, type) and dataclasses.is_dataclass(hint):
            raise TypeError(f"{cls.__name__}.{f.name}: null where an object is expected")
        try:
            kwargs[f.name] = _convert(hint, value)
        except (TypeError, ValueError, AttributeError) as exc:
            text = str(exc)
            raise TypeError(text if text.startswith(cls.__name__) else f"{cls.__name__}.{f.name}: {text}") from None
    return cls(**kwargs)


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write a file so that a reader never sees half of it, even if we are killed mid-write."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """write_text_atomic for bytes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; these files are meant to be shared
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_problem(path: str | os.PathLike, exc: OSError) -> str:
    """A failed write in the user's words: a full disk (or quota) is named as such."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"disk full while writing {path}"
    return f"could not write {path} ({exc.strerror or exc})"


def open_json(path: str | os.PathLike) -> typing.TextIO:
    """A saved JSON file opened for reading as text; a name ending in ``.gz`` is read through gzip
    (recorded runs kept compressed, as traces are)."""
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def write_json_atomic(path: str | os.PathLike, data: Any, indent: Optional[int] = None) -> None:
    write_text_atomic(path, json.dumps(data, indent=indent, allow_nan=False, default=str))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class JsonMixin:
    """``to_json``/``from_json``/``save``/``load`` for a frozen dataclass."""

    def to_dict(self) -> dict[str, Any]:
        return to_dict(self)

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any]) -> T:
        return from_dict(cls, data)

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, default=str)

    @classmethod
    def from_json(cls: type[T], text: str) -> T:
        return from_dict(cls, json.loads(text))

    def save(self, path: str | os.PathLike, indent: int | None = None) -> None:
        write_json_atomic(path, self.to_dict(), indent=indent)

    @classmethod
    def load(cls: type[T], path: str | os.PathLike) -> T:
        with open_json(path) as fh:
            return from_dict(cls, json.load(fh))
