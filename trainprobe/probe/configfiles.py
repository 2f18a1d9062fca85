"""The configuration files the script read, with the line of each key.

Many training runs take their knobs from a file rather than from code: Hydra and OmegaConf compose
YAML, yacs and LightningCLI read a YAML, LLaMA-Factory parses one into TrainingArguments, tab-ddpm
reads a TOML, a MONAI bundle is JSON. There the fix a user makes is a line of that file
(``precision: bf16-mixed`` under ``trainer:``), so the probe notes which such files the script
opened for reading and where each key sits.

Which files: ``open`` (``builtins.open`` and ``io.open``, which pathlib uses) is wrapped while the probe
is installed, so every file the script opens through Python is seen, whatever library reads it, at
no cost to anything but an open. (An audit hook would see C-level opens too, but it runs a Python
function on every audited event, ``id()`` and ``sys._getframe()`` included: about 36 a step on a
small MLP's probed run, a few per cent of its 186 µs step, for the life of the process.)
Only YAML, TOML and JSON files outside the Python installation, outside hidden folders (caches,
Hydra's own ``.hydra`` output) and outside a Hugging Face Hub cache are kept, at most
``MAX_FILES`` of them, each read back at the end when it is at most ``MAX_BYTES`` long.

How the keys are read: by a scanner of lines, not a parser (none of the three readers is a
dependency, and tomllib gives no line numbers). It knows block mappings by their indentation in
YAML, ``[tables]`` and dotted keys in TOML, and objects in JSON, and skips what it does not know
(lists, multi-line strings, anchors): a key it cannot place is left out, never put in a wrong place.
"""

from __future__ import annotations

import builtins
import functools
import io
import os
import re
import stat
import sys
from typing import Any, Optional

from ..record import ConfigEntry, ConfigFile

__all__ = ["ConfigWatch", "read_config_files", "scan_text", "MAX_FILES", "MAX_BYTES", "MAX_ENTRIES"]

MAX_FILES = 32
MAX_BYTES = 256 * 1024
MAX_ENTRIES = 2000
_MAX_SEEN = 4096  # names looked at, kept or not

_FORMATS = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json"}
# Files a model or tokenizer carries, read by libraries, not the run's configuration.
_ARTEFACTS = frozenset({"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                        "generation_config.json", "vocab.json", "preprocessor_config.json", "adapter_config.json",
                        "trainer_state.json", "dataset_info.json", "dataset_infos.json", "state.json",
                        "model.safetensors.index.json", "pytorch_model.bin.index.json"})
_HUB_PARTS = ("models--", "datasets--", "spaces--")
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # trainprobe's package


def _installation() -> tuple[str, ...]:
    roots = {os.path.realpath(p) + os.sep for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p}
    return tuple(sorted(roots))


class ConfigWatch:
    """Notes the configuration files the script opens for reading, through ``builtins.open`` and ``io.open``
    (pathlib's and most readers' way in), wrapped while the probe is installed: the wrapper opens the file
    exactly as asked and only then notes its name, so an open that fails fails as it would have."""

    def __init__(self, exclude: tuple[str, ...] = ()) -> None:
        self.paths: list[str] = []
        self._seen: set[str] = set()
        self._exclude = tuple(os.path.realpath(p) + os.sep for p in (*exclude, _OWN_DIR) if p) + _installation()
        self._originals: Optional[tuple[Any, Any]] = None
        self._wrapper: Any = None

    def start(self) -> None:
        if self._originals is not None:
            return
        original = builtins.open
        watch = self

        @functools.wraps(original)
        def open(file, mode="r", *args, **kwargs):  # pylint: disable=redefined-builtin
            handle = original(file, mode, *args, **kwargs)
            try:
                watch._note(file, mode)  # pylint: disable=protected-access
            except Exception:  # pylint: disable=broad-except  # noting must never change what open does
                pass
            return handle

        self._originals = (builtins.open, io.open)
        self._wrapper = open
        builtins.open = open
        io.open = open

    def stop(self) -> None:
        """Put open back, where it is still ours: a script that wrapped it in turn keeps its own."""
        if self._originals is not None:
            if builtins.open is self._wrapper:
                builtins.open = self._originals[0]
            if io.open is self._wrapper:
                io.open = self._originals[1]
            self._originals = None

    def _note(self, path: Any, mode: Any) -> None:
        if not isinstance(mode, str) or any(c in mode for c in "wax+"):
            return
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        elif not isinstance(path, str):
            path = os.fspath(path) if hasattr(path, "__fspath__") else None  # an int is a descriptor
        if not isinstance(path, str) or os.path.splitext(path)[1].lower() not in _FORMATS \
                or len(self.paths) >= MAX_FILES or len(self._seen) >= _MAX_SEEN:
            return  # (a dataset of a million JSON files is not a million configurations to remember)
        full = os.path.abspath(path)
        if full in self._seen:
            return
        self._seen.add(full)
        if self._kept(full):
            self.paths.append(full)

    def _kept(self, full: str) -> bool:
        if os.path.basename(full) in _ARTEFACTS:
            return False
        parts = full.split(os.sep)
        if any(p.startswith(".") and p not in (".", "..") for p in parts[:-1]):
            return False  # a cache, Hydra's .hydra output, a virtual environment in .venv
        if any(p.startswith(_HUB_PARTS) for p in parts) or "site-packages" in parts or "dist-packages" in parts:
            return False
        real = os.path.realpath(full)
        return not any(real.startswith(root) for root in self._exclude)


def read_config_files(paths: list[str]) -> tuple[ConfigFile, ...]:
    """The files at ``paths``, scanned; a file that is gone, too long or not text is left out."""
    out = []
    for path in paths:
        kind = _FORMATS.get(os.path.splitext(path)[1].lower())
        try:
            info = os.stat(path)
            # Only a regular file: a FIFO named config.yaml would block the read, a device would not end.
            if kind is None or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        entries = scan_text(text, kind)
        if entries:
            out.append(ConfigFile(path=path, format=kind, entries=entries))
    return tuple(out)


def scan_text(text: str, kind: str) -> tuple[ConfigEntry, ...]:
    """The keys of a config file's text, with their lines, in the file's order."""
    scanner = {"yaml": _scan_yaml, "toml": _scan_toml, "json": _scan_json}[kind]
    try:
        return tuple(scanner(text.splitlines())[:MAX_ENTRIES])
    except Exception:  # pylint: disable=broad-except  # a file the scanner cannot follow gives no keys
        return ()


# A key: a name (argbind's "DataLoader.num_workers" and "train/AudioDataset.duration" hold dots and slashes), or
# quoted.
_YAML_KEY = re.compile(r"""^(?P<indent>\s*)(?P<key>[A-Za-z_][\w\-/.]*|"[^"]+"|'[^']+')\s*:(?:\s+(?P<value>.*))?$""")


def _yaml_value(value: Optional[str]) -> str:
    """The value without a trailing comment."""
    if not value or value.startswith("#"):
        return ""
    if value[0] not in "\"'":
        value = re.split(r"\s#", value, maxsplit=1)[0]
    return value.strip()


def _scan_yaml(lines: list[str]) -> list[ConfigEntry]:
    out: list[ConfigEntry] = []
    stack: list[tuple[int, str]] = []  # (indent, key) of the open blocks
    block_scalar: Optional[int] = None  # the indent of a key whose | or > value runs over the next lines
    in_list: Optional[int] = None  # the indent of a "- " item whose mapping is skipped
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped in ("---", "..."):
            continue
        indent = len(line) - len(line.lstrip())
        if block_scalar is not None:
            if indent > block_scalar:
                continue
            block_scalar = None
        if in_list is not None:
            if indent > in_list or (indent == in_list and stripped.startswith("-")):
                continue
            in_list = None
        if stripped.startswith("-"):
            in_list = indent  # a list (of values or of mappings): its items have no key of their own
            continue
        m = _YAML_KEY.match(line)
        if m is None:
            continue
        key = m.group("key").strip("\"'")
        value = _yaml_value(m.group("value"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = ".".join([k for _, k in stack] + [key])
        written = f"{m.group('key')}: {value}" if value else f"{m.group('key')}:"
        if value in ("|", ">", "|-", ">-", "|+", ">+"):
            block_scalar = indent  # a multi-line string: its lines are text, not keys
            out.append(ConfigEntry(key=path, line=number, text=written))
            continue
        out.append(ConfigEntry(key=path, line=number, text=written, section=not value))
        if not value:
            stack.append((indent, key))
    return out


_TOML_TABLE = re.compile(r"^\[\s*(?P<name>[^\[\]]+?)\s*\]\s*(#.*)?$")
_TOML_KEY = re.compile(r"""^(?P<key>[A-Za-z0-9_\-."']+?)\s*=\s*(?P<value>.+)$""")


def _toml_key(text: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in text.split("."))


def _scan_toml(lines: list[str]) -> list[ConfigEntry]:
    out: list[ConfigEntry] = []
    table: Optional[str] = ""  # None inside an array of tables ([[x]]): its keys are an item's, not settings
    multiline: Optional[str] = None  # the quote that closes a multi-line string
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if multiline is not None:
            if multiline in stripped:
                multiline = None
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[["):
            table = None
            continue
        m = _TOML_TABLE.match(stripped)
        if m is not None:
            table = _toml_key(m.group("name"))
            out.append(ConfigEntry(key=table, line=number, text=stripped, section=True))
            continue
        m = _TOML_KEY.match(stripped)
        if m is None or table is None:
            continue
        value = m.group("value").strip()
        for quote in ('"""', "'''"):
            if value.startswith(quote) and value.count(quote) == 1:
                multiline = quote
        key = _toml_key(m.group("key"))
        if value[0] not in "\"'[{":
            value = value.split("#", 1)[0].strip()
        written = f"{m.group('key').strip()} = {value}"
        out.append(ConfigEntry(key=f"{table}.{key}" if table else key, line=number, text=written))
    return out


def _json_scalar(rest: str) -> str:
    """The value that starts ``rest``: a string with its quotes, or the text before a comma or a brace."""
    if rest.startswith('"'):
        j = 1
        while j < len(rest) and rest[j] != '"':
            j += 2 if rest[j] == "\\" else 1
        return rest[:j + 1]
    return re.split(r"[,}\]]", rest, maxsplit=1)[0].strip()


def _scan_json(lines: list[str]) -> list[ConfigEntry]:
    """Keys of objects (not of objects inside arrays), by a scan of characters that follows strings,
    braces and brackets."""
    out: list[ConfigEntry] = []
    stack: list[Any] = []  # "{" + its key, or "[" for an array
    pending: Optional[tuple[str, int]] = None  # a string just read, and its line: a key when a colon follows
    key_here: Optional[str] = None  # the key whose value comes next
    for number, line in enumerate(lines, start=1):
        i = 0
        while i < len(line):
            c = line[i]
            if c == '"':
                j = i + 1
                while j < len(line) and line[j] != '"':
                    j += 2 if line[j] == "\\" else 1
                pending = (line[i + 1:j], number)
                i = j + 1
                continue
            if c == ":" and pending is not None:
                key_here = pending[0]
                if all(kind == "{" for kind, _ in stack):
                    path = ".".join([k for _, k in stack if k] + [key_here])
                    rest = line[i + 1:].strip()
                    value = "" if rest.startswith(("{", "[")) else _json_scalar(rest)
                    written = f'"{key_here}": {value}' if value else f'"{key_here}":'
                    out.append(ConfigEntry(key=path, line=pending[1], text=written, section=rest.startswith("{")))
            elif c == "{":
                stack.append(("{", key_here or ""))
                key_here = None
            elif c == "[":
                stack.append(("[", ""))
                key_here = None
            elif c in "}]":
                if stack:
                    stack.pop()
                key_here = None
            elif c == ",":
                key_here = None
            if c != " ":
                pending = None if c not in " \t" else pending
            i += 1
    return out
