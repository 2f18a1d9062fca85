"""Stream the complete events of a torch.profiler (Kineto) Chrome-trace file, in one pass.

Why streaming: a trace of a few hundred training steps on a GPU is hundreds of megabytes of
JSON. ``json.load`` would hold the whole text plus a dict per event (several times the file's
size in memory) before the first event could be looked at. Here the file is read in chunks
(``CHUNK_SIZE`` decoded characters at a time, gzip detected by its magic bytes, not by the
name) into a rolling text buffer:

* the top-level object is walked key by key; every value except ``traceEvents`` is small
  (device properties, distributed info, names) and is parsed whole;
* ``traceEvents`` is walked element by element with the C JSON scanner on the buffer. When an
  element is cut by the end of the buffer the scanner fails *near the end* of it (or on an
  unterminated string): the consumed text is dropped, the next chunk appended and the same
  element parsed again. A failure far from the end is a real syntax error.

Each complete (``"ph": "X"``) event becomes a :class:`TraceEvent` tuple, normalized across the
two dialects Kineto has written (2021: ``Operator``/``Runtime``/``Kernel``/``Memcpy``/``Memset``;
now: ``cpu_op``/``cuda_runtime``/``kernel``/``gpu_memcpy``/...), and is handed out at once: memory
stays at one chunk plus one element, whatever the file's size. Everything else the reader
learns (top-level keys before or after the events, thread and process names, counts, whether
the file was cut off) is in :attr:`TraceReader.meta` once the events are exhausted.

Nothing from json, gzip, zlib or the codec escapes: a file with nothing usable raises
:class:`TraceError` (its text is the message for the user), and a file cut off after some
events ends the stream cleanly with ``meta.truncated`` saying what was lost.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterator, NamedTuple, Optional, Sequence

from .flops import CONV_OPS, SHAPE_OPS

__all__ = ["CHUNK_SIZE", "TraceError", "TraceEvent", "TraceMeta", "TraceReader", "find_traces"]

#: Characters decoded per read. Large enough that per-chunk work (re-basing the buffer, one
#: failed parse of the element cut at the boundary) is noise; small enough to be no memory.
CHUNK_SIZE = 1 << 20

# A scanner failure this close to the end of the buffer may just be the buffer ending (a cut
# number, literal or \\u escape is shorter than this), so more text is read before judging.
_NEAR_END = 64

_GZIP_MAGIC = b"\x1f\x8b"
_WS = re.compile(r"[ \t\n\r]*").match
# After an element: blanks, then "," (another element follows) or "]" (the list ends), then
# blanks again so that the scanner starts right on the next element.
_AFTER = re.compile(r"[ \t\n\r]*([,\]]?)[ \t\n\r]*").match
_NUMBER = re.compile(r"-?\d+")

# Categories (lower-cased) -> kind, both dialects. Anything else is "other" (e.g. cuda_sync,
# Trace, the flow categories that sometimes reach "X" events).
_KIND_OF_CATEGORY = {
    "cpu_op": "op", "operator": "op",
    "cuda_runtime": "runtime", "runtime": "runtime", "cuda_driver": "runtime",
    "kernel": "kernel",
    "gpu_memcpy": "memcpy", "memcpy": "memcpy",
    "gpu_memset": "memset", "memset": "memset",
    "user_annotation": "annotation",
    "gpu_user_annotation": "gpu_annotation",
    "python_function": "python",
}
# Events on a GPU timeline: their pid/tid in the file are device/stream placeholders.
_GPU_KINDS = frozenset({"kernel", "memcpy", "memset", "gpu_annotation"})
_BYTES_KINDS = frozenset({"memcpy", "memset"})
_LOADER_KINDS = frozenset({"op", "annotation"})
_EMPTY: dict = {}


class TraceError(Exception):
    """A file that cannot be read as a trace. ``str(err)`` is the user-facing message: it names
    the file and says what is wrong and what to do, in plain words."""


class TraceEvent(NamedTuple):
    """One complete (``"ph": "X"``) event, normalized. Times in microseconds, as in the file.

    ``kind`` is one of: step (``ProfilerStep#N``, except its mirror on a GPU stream, which stays
    gpu_annotation), loader (``enumerate(DataLoader)...__next__`` as an op or annotation), op,
    runtime, kernel, memcpy, memset, annotation, gpu_annotation, python, other. A tuple, not a
    dataclass: a trace has millions of them, and tuples are the cheapest to make and keep."""

    kind: str
    name: str
    ts: float
    dur: float  # 0.0 when missing
    pid: int  # process id; for GPU events the device index
    tid: int  # thread id; for GPU events the stream
    correlation: Optional[int]  # links a runtime launch to its kernel/memcpy/memset
    external_id: Optional[int]  # links a runtime launch (and GPU work) to its op
    nbytes: Optional[int]  # memcpy/memset only
    seq: Optional[int] = None  # ops only: the autograd "Sequence number" (a forward op and its backward share it)
    # ops in flops.SHAPE_OPS only: (Input Dims, Input type, Concrete Inputs or None) from a trace recorded
    # with shapes, () without them. Kept for those few ops alone, so memory does not grow with the rest.
    shapes: Optional[tuple] = None


@dataclass(frozen=True)
class TraceMeta:
    """What the file says besides its events, and how reading it went."""

    path: str
    schema_version: Optional[int]
    device_properties: tuple[dict, ...]
    distributed_info: Optional[dict]
    base_time_ns: Optional[int]
    trace_name: Optional[str]
    thread_names: dict[tuple[int, int], str]
    process_names: dict[int, str]
    events: int
    skipped: int
    truncated: Optional[str]


class _Stop(Exception):
    """The text cannot be read further; ``reason`` says why in plain words."""

    def __init__(self, reason: str, cut: bool):
        super().__init__(reason)
        self.reason = reason
        self.cut = cut  # True: the data ends early; False: the data is broken


def _gunzip(fh: BinaryIO, size: int) -> Iterator[bytes]:
    """Decompressed gzip data in pieces of at most ``size`` bytes, members one after another.

    zlib rather than gzip.GzipFile: GzipFile.read(n) drops what it decompressed of a cut
    stream when it raises, and a cut trace should still give the events before the cut."""
    unzip = zlib.decompressobj(wbits=31)  # 16 + 15: a gzip header and trailer
    fed = False  # whether the current member has had any input
    pending = b""
    while True:
        if not pending:
            pending = fh.read(size)
            if not pending:
                if fed and not unzip.eof:
                    raise _Stop("the gzip stream ends early (the file was cut off)", cut=True)
                return
        try:
            out = unzip.decompress(pending, size)
        except zlib.error as err:
            raise _Stop(f"the gzip data is damaged ({err})", cut=False) from None
        fed = True
        pending = unzip.unconsumed_tail
        if out:
            yield out
        if unzip.eof:
            # Another member may follow (gzip allows several); zero padding is tolerated.
            pending = unzip.unused_data.lstrip(b"\0")
            unzip = zlib.decompressobj(wbits=31)
            fed = False


def _text_chunks(fh: BinaryIO, chunk_size: int) -> Iterator[str]:
    """The file's text in pieces, gunzipped when it starts with gzip's magic bytes."""
    gzipped = fh.read(2) == _GZIP_MAGIC
    fh.seek(0)
    pieces = _gunzip(fh, chunk_size) if gzipped else iter(lambda: fh.read(chunk_size), b"")
    # utf-8-sig drops a byte-order mark; "replace" keeps one bad byte in a kernel name from
    # costing the rest of the trace (a binary file still fails, as "not JSON", further on).
    decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
    try:
        for data in pieces:
            text = decoder.decode(data)
            if text:
                yield text
    except OSError as err:
        raise _Stop(f"reading the file failed ({err.strerror or err})", cut=True) from None
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail


class _Scanner:
    """A rolling text buffer over the chunks, with JSON helpers that read more when they must."""

    def __init__(self, chunks: Iterator[str]):
        self.chunks = chunks
        self.buf = ""
        self.pos = 0
        self.base = 0  # characters dropped before buf[0], for messages
        self.scan = json.JSONDecoder().scan_once  # the C scanner, without raw_decode's wrapper

    def fill(self) -> bool:
        """Drop what was consumed and append the next chunk; False at the end of the data."""
        for chunk in self.chunks:
            self.base += self.pos
            self.buf = self.buf[self.pos:] + chunk
            self.pos = 0
            return True
        return False

    def peek(self) -> str:
        """The next non-blank character ("" at the end of the data), not consumed."""
        while True:
            self.pos = _WS(self.buf, self.pos).end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return ""

    def expect(self, char: str, what: str) -> None:
        got = self.peek()
        if got != char:
            raise self.broken(f"expected {what}", cut=got == "")
        self.pos += 1

    def value(self) -> Any:
        """Parse one whole JSON value at the cursor."""
        self.peek()
        while True:
            try:
                obj, self.pos = self.scan(self.buf, self.pos)
                return obj
            except StopIteration as stop:
                at, msg = stop.value, "expected a value"
            except json.JSONDecodeError as err:
                at, msg = err.pos, err.msg
            except RecursionError:  # the C scanner's guard against deep nesting
                raise self.broken("values nested too deeply", cut=False) from None
            if self.maybe_cut(at, msg) and self.fill():
                continue
            raise self.broken(msg, cut=self.cut_at_end(at, msg))

    def maybe_cut(self, at: int, msg: str) -> bool:
        """Whether a scanner failure at ``at`` may only mean that the buffer ends there."""
        return at >= len(self.buf) - _NEAR_END or msg.startswith("Unterminated string")

    def cut_at_end(self, at: int, msg: str) -> bool:
        """With no more text to come: whether the failure is the text ending (not a wrong byte).

        A cut value fails at the very end (give or take a partial literal, number or \\u escape),
        or is a string that never closes."""
        return at >= len(self.buf.rstrip()) - 8 or msg.startswith("Unterminated string")

    def broken(self, msg: str, cut: bool) -> _Stop:
        if cut:
            return _Stop("the JSON ends early (the file was cut off)", cut=True)
        where = self.base + self.pos
        return _Stop(f"the JSON is broken near character {where:,} ({msg.lower()})", cut=False)


class TraceReader:
    """One trace file, read once: ``events()`` streams its events, then ``meta`` describes it."""

    def __init__(self, path: str | os.PathLike, *, chunk_size: int = CHUNK_SIZE):
        self.path = Path(path)
        self.chunk_size = max(1, int(chunk_size))
        self._meta: Optional[TraceMeta] = None
        self._started = False
        if not self.path.exists():
            raise TraceError(f"{self.path}: no such file. Check the path (a torch.profiler trace "
                             f"is a .json or .json.gz file, often *.pt.trace.json.gz).")
        if self.path.is_dir():
            raise TraceError(f"{self.path} is a folder, not a trace file. Pass one of the trace files "
                             f"in it (*.pt.trace.json or *.pt.trace.json.gz, as "
                             f"tensorboard_trace_handler writes them).")
        try:
            with open(self.path, "rb"):
                pass
        except OSError as err:
            raise TraceError(f"{self.path} cannot be read ({err.strerror or err}). Check its "
                             f"permissions, or copy it somewhere readable.") from None

    @property
    def meta(self) -> TraceMeta:
        if self._meta is None:
            raise RuntimeError("TraceReader.meta is complete only after events() has been exhausted")
        return self._meta

    def events(self) -> Iterator[TraceEvent]:
        """The file's complete events in file order, streamed. Raises TraceError (on iteration)
        when the file holds nothing usable. Callable once."""
        if self._started:
            raise RuntimeError("TraceReader.events() can be called only once: make a new TraceReader")
        self._started = True
        return self._stream()

    # -- the one pass ---------------------------------------------------------------------

    def _stream(self) -> Iterator[TraceEvent]:
        self._top: dict[str, Any] = {}
        self._threads: dict[tuple[int, int], str] = {}
        self._processes: dict[int, str] = {}
        self._ids: dict[Any, int] = {}
        self._unnumbered = 0  # pid/tid names without a number met so far
        self._count = 0
        self._skipped = 0
        truncated: Optional[str] = None
        try:
            fh = open(self.path, "rb")
        except OSError as err:
            raise TraceError(f"{self.path} cannot be read ({err.strerror or err}).") from None
        with fh:
            sc = _Scanner(_text_chunks(fh, self.chunk_size))
            try:
                yield from self._document(sc)
            except _Stop as stop:
                if self._count == 0:
                    raise self._error(stop) from None
                truncated = self._truncated(stop)
        self._finish(truncated)

    def _document(self, sc: _Scanner) -> Iterator[TraceEvent]:
        """Walk the top-level object, streaming the ``traceEvents`` list when it comes."""
        first = sc.peek()
        if first != "{":
            raise self._not_a_trace(sc, first)
        sc.pos += 1
        seen_events = False
        members = 0
        while True:
            if sc.peek() == "}":
                break
            if members:
                sc.expect(",", "',' between top-level keys")
                if sc.peek() == "}":  # a trailing comma: tolerated
                    break
            key = sc.value()
            if not isinstance(key, str):
                raise sc.broken("a top-level key is not a string", cut=False)
            sc.expect(":", "':' after a key")
            if key == "traceEvents" and sc.peek() == "[":
                sc.pos += 1
                yield from self._event_list(sc)
                seen_events = True
            else:
                self._top[key] = sc.value()
            members += 1
        if not seen_events:
            raise TraceError(f"{self.path} is JSON but not a torch.profiler trace: it has no "
                             f"\"traceEvents\" list. Pass the file that tensorboard_trace_handler or "
                             f"prof.export_chrome_trace() wrote.")

    def _event_list(self, sc: _Scanner) -> Iterator[TraceEvent]:
        """The hot loop: one element of ``traceEvents`` at a time, everything in locals."""
        scan = sc.scan
        after = _AFTER
        kinds = dict(_KIND_OF_CATEGORY)  # grows with each category spelling met (a cache)
        gpu_kinds, bytes_kinds, loader_kinds = _GPU_KINDS, _BYTES_KINDS, _LOADER_KINDS
        shape_ops, conv_ops = SHAPE_OPS, CONV_OPS
        ident = self._ident
        new = tuple.__new__  # skips the NamedTuple's Python-level __new__
        empty = _EMPTY
        count = skipped = 0
        buf, pos = sc.buf, sc.pos
        try:
            while True:
                try:
                    obj, pos = scan(buf, pos)
                except (StopIteration, json.JSONDecodeError, RecursionError) as err:
                    buf, pos = self._recover(sc, buf, pos, err)
                    if pos < 0:  # the list ended (empty, or after a trailing comma)
                        pos = sc.pos
                        break
                    continue

                if type(obj) is not dict:
                    skipped += 1
                elif obj.get("ph") != "X":
                    if obj.get("ph") == "M":
                        self._metadata(obj)
                    skipped += 1
                else:
                    try:
                        ts = float(obj["ts"])
                    except (KeyError, TypeError, ValueError):
                        ts = None
                    if ts is None:
                        skipped += 1
                    else:
                        dur = obj.get("dur")
                        if dur is None:
                            dur = 0.0
                        elif type(dur) is not float:
                            try:
                                dur = float(dur)
                            except (TypeError, ValueError):
                                dur = 0.0
                        cat = obj.get("cat")
                        if type(cat) is not str:
                            cat = ""
                        kind = kinds.get(cat)
                        if kind is None:
                            kind = kinds[cat] = _KIND_OF_CATEGORY.get(cat.lower(), "other")
                        name = obj.get("name")
                        if type(name) is not str:
                            name = "" if name is None else str(name)
                        if name.startswith("ProfilerStep#"):
                            # The GPU-side mirror of a step annotation is not a second step.
                            if kind != "gpu_annotation":
                                kind = "step"
                        elif (kind in loader_kinds and name.startswith("enumerate(DataLoader)")
                              and "__next__" in name):
                            kind = "loader"
                        args = obj.get("args")
                        if type(args) is not dict:
                            args = empty
                        corr = args.get("correlation")
                        if corr is not None and type(corr) is not int:
                            corr = _opt_int(corr)
                        ext = args.get("External id")
                        if ext is None:
                            ext = args.get("external id")  # the 2021 dialect's runtime/GPU spelling
                        if ext is not None and type(ext) is not int:
                            ext = _opt_int(ext)
                        nbytes = seq = shapes = None
                        if kind == "op":
                            seq = args.get("Sequence number")
                            if seq is not None and type(seq) is not int:
                                seq = _opt_int(seq)
                            if name in shape_ops:
                                dims = args.get("Input Dims")
                                # () marks a countable op recorded without shapes: a total that
                                # left it out would pass for the whole.
                                shapes = (dims, args.get("Input type"),
                                          args.get("Concrete Inputs") if name in conv_ops else None
                                          ) if type(dims) is list else ()
                        if kind in gpu_kinds:
                            pid = args.get("device")
                            if type(pid) is not int:
                                pid = ident(obj.get("pid"))
                            tid = args.get("stream")
                            if type(tid) is not int:
                                tid = ident(obj.get("tid"))
                            if kind in bytes_kinds:
                                nbytes = args.get("bytes")
                                if nbytes is not None and type(nbytes) is not int:
                                    nbytes = _opt_int(nbytes)
                        else:
                            pid = obj.get("pid")
                            if type(pid) is not int:
                                pid = ident(pid)
                            tid = obj.get("tid")
                            if type(tid) is not int:
                                tid = ident(tid)
                        count += 1
                        yield new(TraceEvent, (kind, name, ts, dur, pid, tid, corr, ext, nbytes, seq, shapes))

                # Then what follows the element: "," and the next one, or "]" and the end.
                m = after(buf, pos)
                sep = m.group(1)
                pos = m.end()
                if not sep:  # the buffer ends here (or the file is broken): look further
                    sc.buf, sc.pos = buf, pos
                    sep = sc.peek()
                    buf, pos = sc.buf, sc.pos
                    if sep not in (",", "]"):
                        raise sc.broken("expected ',' or ']' after an event", cut=sep == "")
                    pos += 1
                if sep == "]":
                    break
        finally:
            self._count = count
            self._skipped += skipped
        sc.buf, sc.pos = buf, pos

    def _recover(self, sc: _Scanner, buf: str, pos: int, err: Exception) -> tuple[str, int]:
        """After the scanner failed at an element: skip blanks, read on, or give up.

        Returns the buffer and position to scan again, or a negative position when the list
        ended there (a "]" where an element was expected)."""
        blank = _WS(buf, pos).end()
        if blank < len(buf) and buf[blank] == "]":
            sc.buf, sc.pos = buf, blank + 1
            return buf, -1
        if isinstance(err, RecursionError):  # the C scanner's guard against deep nesting
            sc.buf, sc.pos = buf, blank
            raise sc.broken("values nested too deeply", cut=False)
        if isinstance(err, StopIteration):
            at, msg = err.value, "expected an event"
        else:
            assert isinstance(err, json.JSONDecodeError)
            at, msg = err.pos, err.msg
        sc.buf, sc.pos = buf, blank
        if blank == len(buf) or (blank == pos and sc.maybe_cut(at, msg)):
            if sc.fill():
                return sc.buf, sc.pos
            raise sc.broken(msg, cut=blank == len(buf) or sc.cut_at_end(at, msg))
        if blank > pos:
            return buf, blank
        raise sc.broken(msg, cut=False)

    def _ident(self, value: Any) -> int:
        """An int for a pid/tid that the file wrote otherwise: "25738" -> 25738, "stream 7" -> 7,
        a name without a number -> a small negative int, the same for each use of that name."""
        known = self._ids.get(value) if isinstance(value, (str, float, type(None))) else None
        if known is not None:
            return known
        if value is None:
            out = 0
        elif isinstance(value, float) and value.is_integer():
            out = int(value)
        else:
            text = str(value)
            found = _NUMBER.search(text)
            if found:
                out = int(found.group())
            else:
                self._unnumbered += 1
                out = -self._unnumbered
        if isinstance(value, (str, float, type(None))):
            self._ids[value] = out
        return out

    def _metadata(self, obj: dict) -> None:
        args = obj.get("args")
        label = args.get("name") if isinstance(args, dict) else None
        if not isinstance(label, str):
            return
        what = obj.get("name")
        pid = obj.get("pid")
        pid = pid if type(pid) is int else self._ident(pid)
        if what == "thread_name":
            tid = obj.get("tid")
            tid = tid if type(tid) is int else self._ident(tid)
            self._threads[(pid, tid)] = label
        elif what == "process_name":
            self._processes[pid] = label

    # -- endings --------------------------------------------------------------------------

    def _finish(self, truncated: Optional[str]) -> None:
        top = self._top
        devices = top.get("deviceProperties")
        dist = top.get("distributedInfo")
        self._meta = TraceMeta(
            path=str(self.path),
            schema_version=_opt_int(top.get("schemaVersion")),
            device_properties=tuple(d for d in devices if isinstance(d, dict)) if isinstance(devices, list) else (),
            distributed_info=dist if isinstance(dist, dict) else None,
            base_time_ns=_opt_int(top.get("baseTimeNanoseconds")),
            trace_name=top.get("traceName") if isinstance(top.get("traceName"), str) else None,
            thread_names=self._threads,
            process_names=self._processes,
            events=self._count,
            skipped=self._skipped,
            truncated=truncated,
        )

    def _truncated(self, stop: _Stop) -> str:
        lost = "the rest of the trace is lost" if stop.cut else "the rest of the trace could not be read"
        return f"{stop.reason}: read {self._count:,} events; {lost}"

    def _error(self, stop: _Stop) -> TraceError:
        if stop.cut:
            return TraceError(f"{self.path} ends before its first trace event: {stop.reason}. Copy "
                              f"it again, or record the trace again.")
        return TraceError(f"{self.path} cannot be read as a trace: {stop.reason}. Pass the file as "
                          f"torch.profiler wrote it (tensorboard_trace_handler or "
                          f"prof.export_chrome_trace()).")

    def _empty(self) -> TraceError:
        return TraceError(f"{self.path} is empty: no trace was written to it. The profiler may have "
                          f"stopped before saving; record the trace again.")

    def _not_a_trace(self, sc: _Scanner, first: str) -> TraceError:
        if first == "":
            return self._empty()
        what = None
        if first == "[":
            what = "a JSON list"
        elif first in '"-0123456789tfn':
            try:
                value = sc.value()
            except _Stop:
                what = None
            else:
                what = ("JSON null" if value is None else "a JSON true/false" if isinstance(value, bool)
                        else "a JSON string" if isinstance(value, str) else "a JSON number")
        if what is None:
            return TraceError(f"{self.path} is not JSON (it does not start with '{{'). A torch.profiler "
                              f"trace is the JSON file, optionally gzipped, that tensorboard_trace_handler "
                              f"or prof.export_chrome_trace() writes.")
        return TraceError(f"{self.path} holds {what}, not a torch.profiler trace (a JSON object with a "
                          f"\"traceEvents\" list). Pass the file that tensorboard_trace_handler or "
                          f"prof.export_chrome_trace() wrote.")


def _opt_int(value: Any) -> Optional[int]:
    """An int from a number or numeric string; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    try:
        as_float = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return int(as_float) if as_float.is_integer() else None


_TRACE_SUFFIXES = (".json", ".json.gz")


def _trace_files(folder: Path) -> list[Path]:
    def is_trace(p: Path) -> bool:
        return not p.name.startswith(".") and p.name.endswith(_TRACE_SUFFIXES) and p.is_file()

    found: list[Path] = []
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not entry.name.startswith("."):
            found.extend(p for p in sorted(entry.iterdir()) if is_trace(p))
        elif is_trace(entry):
            found.append(entry)
    return found


def find_traces(paths: Sequence[str | os.PathLike]) -> list[Path]:
    """Expand each path: a file is taken as is; a folder gives its trace files (*.json,
    *.json.gz) and those of its direct subfolders, sorted by name. Raises TraceError when a
    path does not exist or a folder holds no trace file."""
    out: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            try:
                found = _trace_files(path)
            except OSError as err:
                raise TraceError(f"{path}: the folder cannot be listed ({err.strerror or err}).") from None
            if not found:
                raise TraceError(f"{path}: no trace files in this folder (looked for *.json and *.json.gz, "
                                 f"here and one folder down). Pass the folder given to "
                                 f"tensorboard_trace_handler, or a trace file.")
        elif path.exists():
            found = [path]
        else:
            raise TraceError(f"{path}: no such file or folder. Check the path.")
        for p in found:
            key = p.resolve()
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out
