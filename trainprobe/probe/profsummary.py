"""Summarize a torch.profiler window into the record's ProfilerSummary.

The window is exported as a standard trace file and read back by trainprobe/trace/, the code that
reads a trace recorded anywhere (`trainprobe trace`): one summarizer for both sources, so what is
validated on recorded GPU traces is what a live GPU run uses, and `trainprobe trace` on a run's
``profile.pt.trace.json.gz`` reads what the live diagnosis read. The summary holds what
``torch.utils.bottleneck`` compared (CPU vs CUDA time, top ops) and what the rules need: ops per
step, kernel launches, copies and whether they were pageable, syncs, the device's step.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
import time
from dataclasses import replace
from typing import Any, Optional

from ..record import Availability, ProfilerSummary

__all__ = ["LIVE_TRACE_NAME", "summarize_profile"]

LIVE_TRACE_NAME = "profile.pt.trace.json.gz"  # the profiler window, as a standard trace in the run folder


def summarize_profile(window: Any, with_cuda: bool, trace_path: Optional[str] = None,
                      out_dir: Optional[str] = None) -> ProfilerSummary:
    """``window`` is a stopped ProfilerWindow. Never raises: failures become an unavailable summary.

    The window is exported as a standard trace file (``profile.pt.trace.json.gz`` in ``out_dir``; the
    clock marked its steps as ProfilerStep#N ranges) and summarized from that file by the same code
    `trainprobe trace` uses, so a trace and a live run are read one way."""
    started = time.monotonic()
    if window.profile is None:
        return ProfilerSummary(availability=Availability(False, window.error or "the profiler window never opened"))
    if window.steps <= 0:
        return ProfilerSummary(availability=Availability(False, "the script ended before the profiler window closed"))
    folder = out_dir or tempfile.mkdtemp(prefix="trainprobe-profile-")
    path = os.path.join(folder, LIVE_TRACE_NAME)
    try:
        window.profile.export_chrome_trace(path)
    except Exception as exc:  # pylint: disable=broad-except  # the rest of the record still stands
        return ProfilerSummary(availability=Availability(False, f"could not export the profile: {exc}"))
    from ..trace.collect import collect
    from ..trace.read import TraceError, TraceReader
    from ..trace.summarize import digest

    try:
        result = digest(collect(TraceReader(path).events()), path)
    except TraceError as exc:
        return ProfilerSummary(availability=Availability(False, f"could not read the exported profile: {exc}"))
    summary = result.summary
    if not summary.availability.available:
        return summary
    saved = _copy_for_user(path, trace_path)
    peak_alloc = peak_reserved = None
    if with_cuda:
        try:
            import torch

            peak_alloc = int(torch.cuda.max_memory_allocated())
            peak_reserved = int(torch.cuda.max_memory_reserved())
        except Exception:  # pylint: disable=broad-except
            pass
    return replace(summary, source="live", activities=("CPU", "CUDA") if with_cuda else ("CPU",),
                   peak_memory_allocated=peak_alloc, peak_memory_reserved=peak_reserved,
                   trace_path=saved or path, processing_time=time.monotonic() - started)


def _copy_for_user(path: str, wanted: Optional[str]) -> Optional[str]:
    """The window's trace where --trace asked for it (plain JSON unless the name ends in .gz)."""
    if not wanted:
        return None
    try:
        if wanted.endswith(".gz"):
            shutil.copyfile(path, wanted)
        else:
            with gzip.open(path, "rb") as src, open(wanted, "wb") as dst:
                shutil.copyfileobj(src, dst)
        return wanted
    except OSError:
        return None
