"""trace.read: streaming torch.profiler traces, on real recorded traces of both dialects.

The real files are in tests/data/traces (see its README/PROVENANCE: recorded by others on
V100 and A100 GPUs). Edge cases (cut, broken, not a trace) are made here, in tmp_path.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import re
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import pytest

from trainprobe.trace import read as read_module
from trainprobe.trace.read import TraceError, TraceEvent, TraceMeta, TraceReader, find_traces
from trainprobe.trace.flops import CONV_OPS, SHAPE_OPS

sys.path.insert(0, os.path.dirname(__file__))
import recorded  # noqa: E402  (each recorded trace parsed once per session)

DATA = Path(__file__).parent / "data" / "traces"
SHARED = Path("/work/shared/gpu-traces")  # where the data came from, for a checkout without it

ALEXNET = "a100_alexnet_startup.pt.trace.json.gz"
DDP = "a100_ddp_rank0_of2.pt.trace.json.gz"
RESNET0 = "resnet50_v100_workers0.pt.trace.json.gz"
RESNET4 = "resnet50_v100_workers4.pt.trace.json.gz"
RANK0_OF128 = "two_ranks_of128/rank0.pt.trace.json.gz"


def trace(name: str) -> Path:
    for folder in (DATA, SHARED):
        if (folder / name).is_file():
            return folder / name
    pytest.skip(f"the recorded trace {name} is in neither {DATA} nor {SHARED}")


def read(path: Path, **kw: Any) -> tuple[list[TraceEvent], TraceMeta]:
    if not kw:
        return _read_once(path)  # each recorded trace is parsed once per session
    reader = TraceReader(path, **kw)
    events = list(reader.events())
    return events, reader.meta


def _read_once(path: Path) -> tuple[list[TraceEvent], TraceMeta]:
    events, meta = recorded.trace_events(path)
    return list(events), meta


def kinds(events: list[TraceEvent]) -> Counter:
    return Counter(e.kind for e in events)


def error_of(path: Path) -> str:
    """The TraceError's message for reading PATH (any other exception fails the test)."""
    with pytest.raises(TraceError) as info:
        list(TraceReader(path).events())
    assert type(info.value) is TraceError
    return str(info.value)


def write_trace(path: Path, events: list, **top: Any) -> Path:
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events, **top}))
    return path


# -- the real traces -----------------------------------------------------------------------

@pytest.mark.parametrize("name, steps", [(RESNET0, 6), (RESNET4, 6)])
def test_2021_resnet50_traces(name: str, steps: int) -> None:
    events, meta = read(trace(name))
    k = kinds(events)
    assert k["step"] == steps and k["loader"] == 6
    assert {"op", "runtime", "kernel", "memcpy", "memset"} <= set(k)
    assert meta.distributed_info is None and meta.truncated is None and meta.schema_version == 1
    assert [d["name"] for d in meta.device_properties] == ["Tesla V100-DGXS-32GB"] * 4
    # GPU events say tid "stream 7" and args {"device": 0, "stream": 7}
    assert {(e.pid, e.tid) for e in events if e.kind == "kernel"} == {(0, 7)}
    # CPU events' tids are strings such as "25738" in this dialect
    assert all(isinstance(e.tid, int) and e.tid > 0 for e in events if e.kind == "op")
    # 2021 spells it "external id" on runtime and GPU events: both are read
    kernels = [e for e in events if e.kind == "kernel"]
    assert all(e.external_id is not None and e.correlation is not None for e in kernels)
    launches = {e.correlation for e in events if e.kind == "runtime"}
    assert {e.correlation for e in kernels} <= launches
    assert all(e.nbytes and e.nbytes > 0 for e in events if e.kind in ("memcpy", "memset"))
    assert all(e.nbytes is None for e in kernels)


# name, rank, world_size, device name (None: no deviceProperties), steps, loader events
CURRENT = [
    (ALEXNET, 0, None, "NVIDIA A100-PG509-200", 0, 0),
    (DDP, 0, 2, "NVIDIA A100-PG509-200", 3, 0),
    ("a100_rank0_of16.pt.trace.json.gz", 0, 16, "NVIDIA A100-SXM4-80GB", 5, 0),
    ("a100_rank3_of8.pt.trace.json.gz", 3, 8, "NVIDIA A100-PG509-200", 6, 6),
    ("v100_rank1_of2.pt.trace.json.gz", 1, 2, "Tesla V100-SXM2-16GB", 6, 6),
    ("v100_single_rank.pt.trace.json.gz", 0, 1, "Tesla V100-SXM2-32GB", 5, 0),
    (RANK0_OF128, 0, 128, None, 2, 0),
    ("two_ranks_of128/rank1.pt.trace.json.gz", 1, 128, None, 2, 0),
]


@pytest.mark.parametrize("name, rank, world, device, steps, loaders", CURRENT)
def test_current_dialect_traces(name: str, rank: int, world: Optional[int], device: Optional[str],
                                steps: int, loaders: int) -> None:
    events, meta = read(trace(name))
    k = kinds(events)
    assert {"op", "runtime", "kernel", "memcpy", "memset"} <= set(k)
    assert k["step"] == steps and k["loader"] == loaders
    assert meta.distributed_info is not None
    assert meta.distributed_info["rank"] == rank and meta.distributed_info.get("world_size") == world
    if device is None:
        assert meta.device_properties == ()
    else:
        assert meta.device_properties and {d["name"] for d in meta.device_properties} == {device}
    assert meta.truncated is None and meta.events == len(events)
    assert all(type(e.pid) is int and type(e.tid) is int for e in events)


def test_gpu_annotations_are_their_own_kind() -> None:
    events, _ = read(trace(DDP))
    k = kinds(events)
    assert k["gpu_annotation"] == 30 and k["annotation"] == 39 and k["step"] == 3


# An independent reading of the same file: json.load, then the rules of the API written
# out plainly, event by event.
def expected_events(path: Path) -> tuple[list[TraceEvent], int]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        doc = json.load(fh)
    cats = {"cpu_op": "op", "operator": "op", "cuda_runtime": "runtime", "runtime": "runtime",
            "cuda_driver": "runtime", "kernel": "kernel", "gpu_memcpy": "memcpy", "memcpy": "memcpy",
            "gpu_memset": "memset", "memset": "memset", "user_annotation": "annotation",
            "gpu_user_annotation": "gpu_annotation", "python_function": "python"}
    names: dict[str, int] = {}

    def ident(v: Any) -> int:
        if isinstance(v, int):
            return v
        m = re.search(r"-?\d+", v)
        return int(m.group()) if m else names.setdefault(v, -(len(names) + 1))

    out = []
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        kind = cats.get(e.get("cat", "").lower(), "other")
        name = e.get("name", "")
        if name.startswith("ProfilerStep#") and kind != "gpu_annotation":
            kind = "step"
        elif kind in ("op", "annotation") and name.startswith("enumerate(DataLoader)") and "__next__" in name:
            kind = "loader"
        args = e.get("args", {})
        gpu = kind in ("kernel", "memcpy", "memset", "gpu_annotation")
        pid = args["device"] if gpu and "device" in args else ident(e["pid"])
        tid = args["stream"] if gpu and "stream" in args else ident(e["tid"])
        ext = args.get("External id", args.get("external id"))
        nbytes = args.get("bytes") if kind in ("memcpy", "memset") else None
        # Ops keep their autograd sequence number, and the matmul/conv/attention ops their shapes.
        seq = args.get("Sequence number") if kind == "op" else None
        shapes = None
        if kind == "op" and name in SHAPE_OPS:
            shapes = (args["Input Dims"], args.get("Input type"),
                      args.get("Concrete Inputs") if name in CONV_OPS else None) if "Input Dims" in args else ()
        out.append(TraceEvent(kind, name, float(e["ts"]), float(e.get("dur", 0.0)), pid, tid,
                              args.get("correlation"), ext, nbytes, seq, shapes))
    return out, len(doc["traceEvents"])


@pytest.mark.parametrize("name", [DDP, "h100_vit_nsfw_inference_batch4.pt.trace.json.gz",
                                  pytest.param(RESNET0, marks=pytest.mark.slow)])
def test_events_match_a_plain_json_load(name: str) -> None:
    path = trace(name)
    events, meta = read(path)
    expected, elements = expected_events(path)
    assert meta.events == len(expected) == len(events)
    assert meta.events + meta.skipped == elements
    assert events == expected


def test_both_dialects_give_the_same_kinds(tmp_path: Path) -> None:
    pairs = [("Operator", "cpu_op", "op"), ("Runtime", "cuda_runtime", "runtime"),
             ("Runtime", "cuda_driver", "runtime"), ("Kernel", "kernel", "kernel"),
             ("Memcpy", "gpu_memcpy", "memcpy"), ("Memset", "gpu_memset", "memset")]
    for old, new, kind in pairs:
        got = []
        for cat in (old, new, new.upper()):
            path = write_trace(tmp_path / f"{cat}.json",
                               [{"ph": "X", "cat": cat, "name": "x", "ts": 1, "dur": 2, "pid": 1, "tid": 1}])
            got.append(read(path)[0][0].kind)
        assert got == [kind] * 3, (old, new)
    # and on real files: a 2021 trace and a 2022 one of similar training give the same kinds
    old_kinds = set(kinds(read(trace(RESNET0))[0]))
    new_kinds = set(kinds(read(trace("a100_rank3_of8.pt.trace.json.gz"))[0]))
    assert old_kinds == {"op", "runtime", "kernel", "memcpy", "memset", "step", "loader", "other"}
    assert new_kinds == old_kinds | {"annotation"}  # the 2021 run had no user annotations


def test_kind_of_each_category(tmp_path: Path) -> None:
    cats = ["user_annotation", "gpu_user_annotation", "python_function", "cuda_sync", "Trace", "", None]
    path = write_trace(tmp_path / "t.json", [
        {"ph": "X", "cat": c, "name": "n", "ts": i, "pid": 1, "tid": 1} for i, c in enumerate(cats)] + [
        {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#3", "ts": 9, "pid": 0, "tid": 7},
        {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#3", "ts": 9, "pid": 1, "tid": 1},
        {"ph": "X", "cat": "python_function", "name": "ProfilerStep#4", "ts": 9, "pid": 1, "tid": 1},
        {"ph": "X", "cat": "python_function", "name": "enumerate(DataLoader)#_It.__next__", "ts": 9},
        {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_It.__iter__", "ts": 9},
    ])
    got = [e.kind for e in read(path)[0]]
    assert got == ["annotation", "gpu_annotation", "python", "other", "other", "other", "other",
                   "gpu_annotation", "step", "step", "python", "op"]


def test_tiny_chunks_give_the_same_events() -> None:
    path = trace(ALEXNET)
    default, meta = read(path)
    tiny, tiny_meta = read(path, chunk_size=7)
    assert tiny == default and tiny_meta == meta
    odd, _ = read(trace(RANK0_OF128), chunk_size=4099)
    assert odd == read(trace(RANK0_OF128))[0]


def test_default_chunk_size() -> None:
    assert TraceReader(trace(ALEXNET)).chunk_size == read_module.CHUNK_SIZE == 1 << 20


def test_keys_after_trace_events_are_read() -> None:
    _, meta = read(trace(DDP))  # traceName, displayTimeUnit, baseTimeNanoseconds follow the events
    assert meta.trace_name == "/tmp/tmpu3g3sevh.json"
    assert meta.base_time_ns == 1711964646000000000
    assert meta.schema_version == 1


def test_keys_after_trace_events_synthetic(tmp_path: Path) -> None:
    path = tmp_path / "after.json"
    path.write_text('{"traceEvents": [{"ph": "X", "ts": 5, "dur": 1, "name": "a", "cat": "cpu_op"}],\n'
                    ' "distributedInfo": {"rank": 3, "world_size": 8, "backend": "nccl"},\n'
                    ' "deviceProperties": [{"id": 0, "name": "GPU X"}], "traceName": "t",\n'
                    ' "baseTimeNanoseconds": 17, "schemaVersion": 1}')
    events, meta = read(path)
    assert [e.name for e in events] == ["a"]
    assert meta.distributed_info == {"rank": 3, "world_size": 8, "backend": "nccl"}
    assert meta.device_properties == ({"id": 0, "name": "GPU X"},)
    assert (meta.trace_name, meta.base_time_ns, meta.schema_version) == ("t", 17, 1)


def test_thread_and_process_names() -> None:
    _, meta = read(trace(DDP))
    assert meta.thread_names[(0, 7)] == "stream 7 "
    assert meta.thread_names[(2910249, 2910249)] == "thread 2910249 (pt_main_thread)"
    assert meta.process_names[2910249] == "python3.10"
    _, old = read(trace(RESNET0))  # tids written as strings there
    assert old.thread_names[(25738, 25772)] == "thread 25772 (python)"


def test_pid_and_tid_strings_become_ints(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "ids.json", [
        {"ph": "X", "cat": "Trace", "name": "a", "ts": 1, "pid": "Spans", "tid": "PyTorch Profiler"},
        {"ph": "X", "cat": "cpu_op", "name": "b", "ts": 2, "pid": "25738", "tid": "thread 12 (python)"},
        {"ph": "X", "cat": "kernel", "name": "c", "ts": 3, "pid": 0, "tid": "stream 7", "args": {}},
        {"ph": "X", "cat": "kernel", "name": "d", "ts": 4, "pid": 9, "tid": "stream 7",
         "args": {"device": 2, "stream": 20, "correlation": 5, "External id": 6}},
        {"ph": "X", "cat": "Trace", "name": "e", "ts": 5, "pid": "Spans", "tid": "PyTorch Profiler"},
        {"ph": "M", "name": "thread_name", "pid": "Spans", "tid": "PyTorch Profiler", "args": {"name": "s"}},
    ])
    events, meta = read(path)
    a, b, c, d, e = [(x.pid, x.tid) for x in events]
    assert a[0] < 0 and a[1] < 0 and a[0] != a[1] and e == a
    assert (b, c, d) == ((25738, 12), (0, 7), (2, 20))
    assert (events[3].correlation, events[3].external_id) == (5, 6)
    assert meta.thread_names[a] == "s"


def test_malformed_events_are_skipped(tmp_path: Path) -> None:
    path = write_trace(tmp_path / "bad.json", [
        1, "x", None, [], {"ph": "X"}, {"ph": "X", "ts": "soon"}, {"ph": "i", "ts": 1}, {"ph": "s", "ts": 1},
        {"ph": "X", "ts": 3, "name": 7, "dur": "long", "args": "none"},
        {"ph": "X", "ts": 4.5, "dur": 2, "name": "ok", "cat": "kernel", "args": {"bytes": 3}},
    ])
    events, meta = read(path)
    assert [(e.name, e.ts, e.dur) for e in events] == [("7", 3.0, 0.0), ("ok", 4.5, 2.0)]
    assert events[1].nbytes is None  # bytes only count for memcpy/memset
    assert (meta.events, meta.skipped, meta.truncated) == (2, 8, None)


def test_bom_whitespace_and_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(b'\xef\xbb\xbf\n\t{ "traceEvents" :\n[ {"ph":"X","ts":1} ,\n\n{"ph":"X","ts":2},\n ] ,'
                     b' "traceName" : "n" , }\n')
    events, meta = read(path)
    assert [e.ts for e in events] == [1.0, 2.0] and meta.trace_name == "n"


@pytest.mark.parametrize("ascii_only", [True, False])
def test_non_ascii_names_across_chunk_boundaries(tmp_path: Path, ascii_only: bool) -> None:
    names = ["aten::conv2d", "café_kernel", "ядро", "カーネル", "🔥 fused", 'quote " and \\ backslash']
    path = tmp_path / "names.json.gz"
    events = [{"ph": "X", "cat": "kernel", "ts": i, "name": n} for i, n in enumerate(names * 3)]
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": events}, ensure_ascii=ascii_only).encode()))
    for size in (1, 2, 3, 5, 1 << 20):
        assert [e.name for e in read(path, chunk_size=size)[0]] == names * 3, size


def test_an_empty_event_list_is_a_trace(tmp_path: Path) -> None:
    events, meta = read(write_trace(tmp_path / "none.json", []))
    assert events == [] and meta.events == 0 and meta.truncated is None


def test_multi_member_gzip(tmp_path: Path) -> None:
    text = json.dumps({"traceEvents": [{"ph": "X", "ts": i, "name": str(i)} for i in range(50)]}).encode()
    path = tmp_path / "two.json.gz"
    path.write_bytes(gzip.compress(text[:333]) + gzip.compress(text[333:]))
    assert [e.name for e in read(path)[0]] == [str(i) for i in range(50)]


def test_gzip_is_found_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    raw = trace(ALEXNET).read_bytes()
    plain = gzip.decompress(raw)
    (tmp_path / "gz.json").write_bytes(raw)
    (tmp_path / "plain.json.gz").write_bytes(plain)
    assert read(tmp_path / "gz.json")[0] == read(tmp_path / "plain.json.gz")[0] == read(trace(ALEXNET))[0]


# -- cut and broken files ------------------------------------------------------------------

def test_gzip_cut_in_the_middle_gives_the_events_before(tmp_path: Path) -> None:
    raw = trace(RANK0_OF128).read_bytes()
    full, _ = read(trace(RANK0_OF128))
    path = tmp_path / "cut.pt.trace.json.gz"
    path.write_bytes(raw[: len(raw) // 2])
    events, meta = read(path)
    assert 0 < len(events) < len(full) and events == full[: len(events)]
    assert meta.truncated and "gzip stream ends early" in meta.truncated
    assert f"read {len(events):,} events" in meta.truncated and "rest of the trace is lost" in meta.truncated


def test_json_cut_in_the_middle_gives_the_events_before(tmp_path: Path) -> None:
    text = gzip.decompress(trace(ALEXNET).read_bytes())
    full, _ = read(trace(ALEXNET))
    path = tmp_path / "cut.json"
    path.write_bytes(text[: int(len(text) * 0.6)])
    events, meta = read(path)
    assert 0 < len(events) < len(full) and events == full[: len(events)]
    assert meta.truncated and "JSON ends early" in meta.truncated


def test_file_cut_right_after_an_event_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    for tail in ("", ",", ",\n  ", ",\n  {\"ph\": \"X\", \"ts\": 3"):
        path.write_text('{"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2}' + tail)
        events, meta = read(path)
        assert [e.ts for e in events] == [1.0, 2.0], tail
        assert meta.truncated and "JSON ends early" in meta.truncated


def test_broken_json_after_some_events(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X" "ts": 2}, {"ph": "X", "ts": 3}]}')
    events, meta = read(path)
    assert len(events) == 1
    assert meta.truncated and "broken near character" in meta.truncated


def test_file_cut_after_the_event_list(tmp_path: Path) -> None:
    path = tmp_path / "tail.json"
    path.write_text('{"traceEvents": [{"ph": "X", "ts": 1}], "traceName": "abc')
    events, meta = read(path)
    assert len(events) == 1 and meta.truncated and "ends early" in meta.truncated


def test_cut_anywhere_never_raises_anything_but_trace_error(tmp_path: Path) -> None:
    text = gzip.decompress(trace(ALEXNET).read_bytes())
    path = tmp_path / "cut.json"
    seen_truncated = seen_errors = 0
    for i in range(60):
        end = len(text) * i // 60 + 7 * i
        path.write_bytes(text[:end])
        try:
            _, meta = read(path)
        except TraceError:
            seen_errors += 1
            continue
        assert meta.truncated or end >= len(text)
        seen_truncated += 1
    assert seen_errors and seen_truncated


# -- files with nothing usable -------------------------------------------------------------

def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="no such file") as info:
        TraceReader(tmp_path / "nope.pt.trace.json")
    assert "nope.pt.trace.json" in str(info.value)


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="is a folder, not a trace file") as info:
        TraceReader(tmp_path)
    assert str(tmp_path) in str(info.value) and "pt.trace.json" in str(info.value)


@pytest.mark.parametrize("name, data", [
    ("empty.json", b""), ("blank.json", b" \n\t "), ("empty.json.gz", b""),
    ("gz_of_nothing.json.gz", gzip.compress(b"", mtime=0)),
])
def test_empty_files(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    message = error_of(path)
    assert name in message and "is empty" in message and "record the trace again" in message


@pytest.mark.parametrize("data", [b"hello, world", b"\x00\x01\x02binary", b"<html></html>", b"nul"])
def test_not_json(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(data)
    message = error_of(path)
    assert "x.json is not JSON" in message and "export_chrome_trace" in message


@pytest.mark.parametrize("text, what", [
    ('{"a": 1}', "has no \"traceEvents\" list"),
    ('{"traceEvents": {"ph": "X"}}', "has no \"traceEvents\" list"),
    ('[{"ph": "X", "ts": 1}]', "holds a JSON list"),
    ('"traceEvents"', "holds a JSON string"),
    ("42", "holds a JSON number"),
    ("null", "holds JSON null"),
])
def test_json_that_is_not_a_trace(tmp_path: Path, text: str, what: str) -> None:
    path = tmp_path / "other.json"
    path.write_text(text)
    message = error_of(path)
    assert "other.json" in message and what in message and "not a torch.profiler trace" in message


def test_gzip_cut_before_the_first_event(tmp_path: Path) -> None:
    raw = trace(ALEXNET).read_bytes()
    for end in (10, 200):  # in the gzip header; in deviceProperties
        path = tmp_path / f"cut{end}.json.gz"
        path.write_bytes(raw[:end])
        message = error_of(path)
        assert path.name in message and "ends before its first trace event" in message
        assert "gzip stream ends early" in message and "record the trace again" in message


def test_damaged_gzip(tmp_path: Path) -> None:
    path = tmp_path / "bad.json.gz"
    path.write_bytes(b"\x1f\x8b" + bytes(range(256)) * 4)
    message = error_of(path)
    assert "bad.json.gz" in message and "gzip data is damaged" in message


def test_deep_nesting_is_a_trace_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"traceEvents": [' + "[" * 100_000 + "]" * 100_000 + "]}")
    assert "nested too deeply" in error_of(path)


# -- the reader's contract -----------------------------------------------------------------

def test_meta_before_the_end_is_a_programming_error() -> None:
    reader = TraceReader(trace(ALEXNET))
    with pytest.raises(RuntimeError):
        reader.meta
    it = reader.events()
    next(it)
    with pytest.raises(RuntimeError):
        reader.meta
    for _ in it:
        pass
    assert reader.meta.events == 868


def test_events_can_be_read_once() -> None:
    reader = TraceReader(trace(ALEXNET))
    list(reader.events())
    with pytest.raises(RuntimeError, match="only once"):
        reader.events()


def test_public_surface() -> None:
    assert set(read_module.__all__) == {"CHUNK_SIZE", "TraceError", "TraceEvent", "TraceMeta", "TraceReader",
                                        "find_traces"}
    assert TraceEvent._fields == ("kind", "name", "ts", "dur", "pid", "tid", "correlation", "external_id",
                                  "nbytes", "seq", "shapes")


# -- find_traces ---------------------------------------------------------------------------

def test_find_traces_in_a_folder(tmp_path: Path) -> None:
    for rel in ["b.pt.trace.json.gz", "a.json", "notes.txt", ".hidden.json", "sub/c.pt.trace.json",
                "sub/deeper/d.json", "sub/e.csv"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    found = find_traces([tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.json", "b.pt.trace.json.gz",
                                                                   "sub/c.pt.trace.json"]
    # a file is taken as is (whatever its name), and nothing is listed twice
    assert find_traces([tmp_path / "notes.txt", tmp_path / "a.json", tmp_path]) == [
        tmp_path / "notes.txt", tmp_path / "a.json", tmp_path / "b.pt.trace.json.gz", tmp_path / "sub/c.pt.trace.json"]


def test_find_traces_in_the_recorded_folder() -> None:
    folder = trace(RANK0_OF128).parent
    assert [p.name for p in find_traces([folder])] == ["rank0.pt.trace.json.gz", "rank1.pt.trace.json.gz"]
    everything = find_traces([folder.parent])
    assert trace(ALEXNET) in everything and trace(RANK0_OF128) in everything


def test_find_traces_in_a_folder_without_any(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(TraceError, match="no trace files in this folder") as info:
        find_traces([tmp_path])
    assert str(tmp_path) in str(info.value)


def test_find_traces_on_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="no such file or folder") as info:
        find_traces([tmp_path / "missing"])
    assert "missing" in str(info.value)


# -- memory --------------------------------------------------------------------------------

@pytest.mark.slow
def test_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    """A 17 MB trace is read with a few MB of Python allocations: the events are streamed (loading it whole
    would allocate several times its size in Python objects)."""
    import tracemalloc

    doc = json.loads(gzip.decompress(trace(DDP).read_bytes()))
    body = ",\n".join(json.dumps(e) for e in doc["traceEvents"])
    path = tmp_path / "big.json"
    with open(path, "w") as fh:
        fh.write('{"traceEvents": [\n')
        fh.write(",\n".join([body] * 2))
        fh.write("\n]}")
    assert path.stat().st_size > 16_000_000
    tracemalloc.start()
    try:
        reader = TraceReader(path)
        count = sum(1 for _ in reader.events())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 2 * 26933
    assert peak < 16 * (1 << 20), f"peak {peak / (1 << 20):.1f} MB"
