"""How fast trainprobe reads a big torch.profiler trace, and how much memory it takes.

It writes a synthetic trace of the size asked for (default 500 MB of JSON) by repeating the
events of two real recorded traces, one of each dialect (the 2021 ResNet-50 trace: Operator,
Runtime, Kernel, Memcpy, Memset; a 2024 DDP trace: cpu_op, cuda_runtime, kernel, gpu_memcpy,
flows, ...). Each repetition is shifted in time to follow the one before, its ProfilerStep#N
numbers continue, and its correlation / External ids stay unique, so the file looks like one
long run. The top-level keys come before and after "traceEvents", as Kineto writes them.

Then a fresh Python process (so the generator's memory does not count) reads it once with
TraceReader and reports the measured figures: events, seconds, events/s, MB/s, peak RSS and
its growth over the process's start (resource.getrusage), and, with --tracemalloc, the peak
of Python allocations in a second pass.

    python benchmarks/trace_read.py                      # 500 MB, plain JSON, in a temp dir
    python benchmarks/trace_read.py --size-mb 50 --gzip
    python benchmarks/trace_read.py --out /tmp/big.pt.trace.json --keep
    python benchmarks/trace_read.py --read-only /tmp/big.pt.trace.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Optional

ROOT = Path(__file__).resolve().parent.parent
TRACE_DIRS = (ROOT / "tests" / "data" / "traces", Path("/work/shared/gpu-traces"))
SOURCES = ("resnet50_v100_workers0.pt.trace.json.gz",  # 2021 dialect
           "a100_ddp_rank0_of2.pt.trace.json.gz")  # current dialect, flows, keys after the events

_ID_FIELDS = ("correlation", "External id", "external id")
# A hole in a serialized event: "@@3@@" (or "ProfilerStep#@@3@@"), quotes included.
_HOLE = re.compile(r'"(?:ProfilerStep#)?@@(\d+)@@"')


class _Template:
    """One real event, serialized once, with holes where ts, ids and the step number go."""

    __slots__ = ("pieces", "slots", "complete")

    def __init__(self, event: dict, t0: float):
        holes: list[tuple[str, float]] = []

        def hole(kind: str, base: float) -> str:
            holes.append((kind, base))
            return f"@@{len(holes) - 1}@@"

        event = dict(event)
        if isinstance(event.get("ts"), (int, float)):
            event["ts"] = hole("ts", event["ts"] - t0)
        if isinstance(event.get("args"), dict):
            args = event["args"] = dict(event["args"])
            for key in _ID_FIELDS:
                if isinstance(args.get(key), int):
                    args[key] = hole("id", args[key])
        if event.get("ph") in ("s", "f") and isinstance(event.get("id"), int):
            event["id"] = hole("id", event["id"])
        name = event.get("name")
        if isinstance(name, str) and name.startswith("ProfilerStep#") and name[13:].isdigit():
            event["name"] = "ProfilerStep#" + hole("step", int(name[13:]))
        self.complete = event.get("ph") == "X"
        parts = _HOLE.split(json.dumps(event))
        self.pieces: list[str] = parts[0::2]
        self.slots = [holes[int(i)] for i in parts[1::2]]


def _render(t: _Template, shift: float, id_shift: int, step_shift: int) -> Iterator[str]:
    pieces = t.pieces
    yield pieces[0]
    for i, (kind, base) in enumerate(t.slots):
        if kind == "ts":
            value = base + shift
            yield str(int(value)) if float(value).is_integer() else f"{value:.3f}"
        elif kind == "id":
            yield str(int(base) + id_shift)
        else:
            yield f'"ProfilerStep#{int(base) + step_shift}"'
        yield pieces[i + 1]


class _Source:
    """A real trace turned into templates: its metadata events once, the rest repeated."""

    def __init__(self, path: Path):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
        events = [e for e in doc["traceEvents"] if isinstance(e, dict)]
        times = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M"]
        t0 = min(times)
        self.span = max(e["ts"] + e.get("dur", 0) for e in events
                        if isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M") - t0 + 1000.0
        ids = [v for e in events for v in _ids_of(e)]
        self.id_span = (max(ids) if ids else 0) + 1
        steps = [int(e["name"][13:]) for e in events
                 if str(e.get("name", "")).startswith("ProfilerStep#") and e["name"][13:].isdigit()]
        self.step_span = (max(steps) + 1) if steps else 0
        self.metadata = [json.dumps(e) for e in events if e.get("ph") == "M"]
        self.templates = [_Template(e, t0) for e in events if e.get("ph") != "M"]
        self.top = {k: v for k, v in doc.items() if k != "traceEvents"}


def _ids_of(event: dict) -> Iterator[int]:
    args = event.get("args")
    if isinstance(args, dict):
        for key in _ID_FIELDS:
            if isinstance(args.get(key), int):
                yield args[key]
    if event.get("ph") in ("s", "f") and isinstance(event.get("id"), int):
        yield event["id"]


def find_source(name: str) -> Path:
    for folder in TRACE_DIRS:
        if (folder / name).is_file():
            return folder / name
    raise SystemExit(f"trace_read: the source trace {name} is in none of "
                     f"{', '.join(str(d) for d in TRACE_DIRS)}; pass --source FILE")


def generate(out: Path, size_mb: float, sources: list[Path], use_gzip: bool) -> dict[str, Any]:
    """Write the synthetic trace; returns what was written (sizes, counts, seconds)."""
    start = time.perf_counter()
    loaded = [_Source(p) for p in sources]
    target = int(size_mb * 1_000_000)
    top = dict(loaded[-1].top)  # the current dialect's keys: some go after the events
    head_keys = {k: top[k] for k in ("schemaVersion", "deviceProperties") if k in top}
    tail_keys = {k: v for k, v in top.items() if k not in head_keys}
    opener = (lambda p: gzip.open(p, "wt", encoding="utf-8", compresslevel=6)) if use_gzip else \
        (lambda p: open(p, "w", encoding="utf-8"))
    written = 0
    complete = 0
    blocks = 0
    shift = 0.0
    id_shift = 0
    step_shift = 0
    with opener(out) as fh:
        def emit(text: str) -> None:
            nonlocal written
            fh.write(text)
            written += len(text)  # the sources' text is ASCII: characters are bytes

        head = json.dumps(head_keys, indent=1)[:-2]
        emit(head + ',\n "traceEvents": [\n')
        first = True
        for src in loaded:
            for line in src.metadata:
                emit(("  " if first else ",\n  ") + line)
                first = False
        while written < target:
            for src in loaded:
                buf: list[str] = []
                for t in src.templates:
                    buf.append(",\n  ")
                    buf.extend(_render(t, shift, id_shift, step_shift))
                    if t.complete:
                        complete += 1
                    if len(buf) > 20000:
                        emit("".join(buf))
                        buf.clear()
                        if written >= target:
                            break
                emit("".join(buf))
                shift += src.span
                id_shift += src.id_span
                step_shift += src.step_span
                blocks += 1
                if written >= target:
                    break
        tail = json.dumps(tail_keys, indent=1)[1:]
        emit("\n ],\n" + tail if tail_keys else "\n ]\n}")
    return {"path": str(out), "json_bytes": written, "file_bytes": out.stat().st_size,
            "complete_events": complete, "blocks": blocks, "seconds": time.perf_counter() - start}


class _RssWatch:
    """The process's resident memory, sampled every few milliseconds from another thread.

    resource.getrusage's ru_maxrss would be simpler, but on Linux a child started from a big
    parent inherits the parent's high-water mark, which would hide the reader's own figure."""

    def __init__(self, interval: float = 0.005):
        import psutil

        self.proc = psutil.Process()
        self.interval = interval
        self.start_mb = self.peak_mb = self._now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _now(self) -> float:
        return self.proc.memory_info().rss / (1 << 20)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_mb = max(self.peak_mb, self._now())

    def __enter__(self) -> "_RssWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_mb = max(self.peak_mb, self._now())


def read_once(path: str, with_tracemalloc: bool) -> dict[str, Any]:
    """Read the trace once and measure; runs in its own process."""
    sys.path.insert(0, str(ROOT))
    from trainprobe.trace.read import TraceReader

    kinds: dict[str, int] = {}
    with _RssWatch() as rss:
        start = time.perf_counter()
        reader = TraceReader(path)
        for event in reader.events():
            kinds[event.kind] = kinds.get(event.kind, 0) + 1
        seconds = time.perf_counter() - start
    meta = reader.meta
    result: dict[str, Any] = {
        "events": meta.events, "skipped": meta.skipped, "truncated": meta.truncated,
        "kinds": kinds, "seconds": seconds, "rss_start_mb": rss.start_mb, "rss_peak_mb": rss.peak_mb,
        # ru_maxrss: KiB on Linux, bytes on macOS; inherited from the parent (see _RssWatch).
        "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        / ((1 << 20) if sys.platform == "darwin" else 1024),
        "trailing_keys_read": meta.distributed_info is not None or meta.trace_name is not None,
    }
    if with_tracemalloc:
        import tracemalloc

        tracemalloc.start()
        t0 = time.perf_counter()
        for _ in TraceReader(path).events():
            pass
        result["tracemalloc_seconds"] = time.perf_counter() - t0
        result["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / (1 << 20)
        tracemalloc.stop()
    return result


def diagnose_once(path: str) -> dict[str, Any]:
    """The whole of `trainprobe trace` on the file (read, summarize, rules, report); its own process."""
    sys.path.insert(0, str(ROOT))
    from trainprobe.api import trace

    out = tempfile.mkdtemp(prefix="trainprobe-trace-bench-out-")
    try:
        with _RssWatch() as rss:
            start = time.perf_counter()
            result = trace([path], Path(out) / "run")
            seconds = time.perf_counter() - start
        return {"seconds": seconds, "rss_start_mb": rss.start_mb, "rss_peak_mb": rss.peak_mb,
                "verdict": result.diagnosis.verdict.category, "steps": len(result.record.steps),
                "report_bytes": os.path.getsize(result.report_path) if result.report_path else None}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def report(written: Optional[dict[str, Any]], measured: dict[str, Any], path: str) -> None:
    size = os.path.getsize(path)
    print(f"file          {path}")
    print(f"size on disk  {size / 1e6:,.1f} MB")
    if written is not None:
        print(f"JSON text     {written['json_bytes'] / 1e6:,.1f} MB (generated in {written['seconds']:.1f} s, "
              f"{written['blocks']} blocks, each one source trace's events shifted in time)")
    print(f"events        {measured['events']:,} complete, {measured['skipped']:,} skipped"
          + (f" (expected {written['complete_events']:,})" if written is not None else ""))
    print(f"kinds         {', '.join(f'{k} {v:,}' for k, v in sorted(measured['kinds'].items()))}")
    secs = measured["seconds"]
    text_mb = (written["json_bytes"] if written is not None else size) / 1e6
    print(f"read time     {secs:.2f} s")
    print(f"throughput    {measured['events'] / secs:,.0f} events/s, {text_mb / secs:,.1f} MB/s of JSON")
    print(f"peak RSS      {measured['rss_peak_mb']:,.1f} MB while reading (before: {measured['rss_start_mb']:,.1f} MB, "
          f"growth {measured['rss_peak_mb'] - measured['rss_start_mb']:,.1f} MB; sampled every 5 ms)")
    print(f"ru_maxrss     {measured['ru_maxrss_mb']:,.1f} MB (the reading process's high-water mark, "
          f"inherited from its parent at start)")
    if "tracemalloc_peak_mb" in measured:
        print(f"tracemalloc   peak {measured['tracemalloc_peak_mb']:,.2f} MB of Python allocations "
              f"(second pass, {measured['tracemalloc_seconds']:.1f} s under tracing)")
    print(f"truncated     {measured['truncated']}")
    print(f"keys after traceEvents read: {measured['trailing_keys_read']}")


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size-mb", type=float, default=500.0, help="JSON text to generate, in MB (default 500)")
    p.add_argument("--gzip", action="store_true", help="write the trace gzipped (.json.gz)")
    p.add_argument("--out", type=Path, help="where to write the trace (default: a temp dir, removed after)")
    p.add_argument("--keep", action="store_true", help="keep the generated file")
    p.add_argument("--source", action="append", type=Path, help="real trace(s) to repeat (default: one per dialect)")
    p.add_argument("--tracemalloc", action="store_true", help="also measure Python allocations (a second, slower pass)")
    p.add_argument("--read-only", metavar="FILE", help="only read FILE and report")
    p.add_argument("--no-diagnose", action="store_true", help="only read the file, not run `trainprobe trace` on it")
    p.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--_diagnose", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args._child:
        print(json.dumps(read_once(args.read_only, args.tracemalloc)))
        return 0
    if args._diagnose:
        print(json.dumps(diagnose_once(args.read_only)))
        return 0

    written = None
    tmp: Optional[str] = None
    if args.read_only:
        path = args.read_only
    else:
        sources = args.source or [find_source(name) for name in SOURCES]
        if args.out:
            out = args.out
        else:
            tmp = tempfile.mkdtemp(prefix="trainprobe-trace-bench-")
            out = Path(tmp) / ("synthetic.pt.trace.json" + (".gz" if args.gzip else ""))
        print(f"writing {args.size_mb:,.0f} MB of trace JSON to {out} ...", file=sys.stderr, flush=True)
        written = generate(out, args.size_mb, sources, args.gzip)
        path = str(out)
    try:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--_child", "--read-only", path]
        if args.tracemalloc:
            cmd.append("--tracemalloc")
        print("reading it in a fresh process ...", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        report(written, json.loads(proc.stdout.strip().splitlines()[-1]), path)
        if not args.no_diagnose:
            print("running `trainprobe trace` on it in a fresh process ...", file=sys.stderr, flush=True)
            cmd = [sys.executable, str(Path(__file__).resolve()), "--_diagnose", "--read-only", path]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                return 1
            d = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"trainprobe trace  {d['seconds']:.1f} s from file to report ({d['steps']:,} steps, verdict "
                  f"{d['verdict']}); peak RSS {d['rss_peak_mb']:,.1f} MB (before: {d['rss_start_mb']:,.1f} MB, "
                  f"growth {d['rss_peak_mb'] - d['rss_start_mb']:,.1f} MB)")
    finally:
        if tmp and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
