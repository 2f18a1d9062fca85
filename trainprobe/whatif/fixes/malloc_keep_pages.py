"""malloc_keep_pages: glibc's malloc keeps a step's freed memory for the next step.

What ``MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=N`` does at start-up, done by ``mallopt``
in the script's process before the script runs: big blocks come from the heap instead of mmap,
and up to N bytes of freed heap stay with the process instead of going back to the kernel
(allocator-page-churn). Only glibc has ``mallopt``; elsewhere the fix is not tried.
"""

from __future__ import annotations

from .base import Candidate, Fix, Injector, PlanContext

__all__ = ["FIX", "M_TRIM_THRESHOLD", "M_MMAP_MAX"]

# glibc's malloc.h
M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4


def _plan(ctx: PlanContext) -> list[Candidate]:
    trim = ctx.facts.get("suggested_malloc_trim_bytes")
    if not ctx.facts.get("glibc_malloc") or not isinstance(trim, int):
        return []
    return [Candidate(f"malloc keeps {trim >> 20} MiB", "malloc_keep_pages", {"malloc_keep_pages": trim})]


class _KeepPages(Injector):
    fix_id = "malloc_keep_pages"

    def install(self) -> None:
        import ctypes
        import ctypes.util

        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            mallopt = libc.mallopt
        except (OSError, AttributeError):
            return  # not glibc: nothing applied, and the trial says so
        trim = int(self.value)
        if mallopt(M_MMAP_MAX, 0) == 1 and mallopt(M_TRIM_THRESHOLD, trim) == 1:
            self.applier.applied(self.fix_id, f"mallopt(M_MMAP_MAX, 0), mallopt(M_TRIM_THRESHOLD, {trim})")


FIX = Fix(id="malloc_keep_pages", what="glibc's malloc keeps freed memory (MALLOC_MMAP_MAX_=0, MALLOC_TRIM_THRESHOLD_)",
          injector=_KeepPages, plan=_plan, untried="the process does not allocate with glibc's malloc",
          by_hand="start the script with MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=<bytes> in its environment "
                  "and compare steps/s of `trainprobe diagnose` with and without")
