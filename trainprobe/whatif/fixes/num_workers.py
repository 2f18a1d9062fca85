"""num_workers: DataLoader worker processes, tried at half, at and at twice the suggestion.

On a CPU-only run each count comes with the torch threads that fit beside it (the
torch_threads fix), as the advice says: workers on cores the model's threads
already use slow the math down more than they speed the input up. Two cases go
past that sweep:

* making a batch waits (``batch_making_cpu_share`` low: a remote call, a sleep): waiting
  workers need no core, so the counts are not capped by the cores, and the model keeps
  its threads;
* handing a batch from a worker to the loop costs more than making it
  (``batch_receive_per_batch`` above ``fetch_per_batch``): num_workers=0 is tried too, the
  loop making its batches itself.
"""

from __future__ import annotations

from ...facts.input import WAITING_CPU_SHARE
from .base import Candidate, Fix, Injector, PlanContext
from .torch_threads import threads_left

__all__ = ["FIX", "sweep"]


def sweep(suggested: int, current: int, cores: int) -> tuple[int, ...]:
    """Half, the suggestion and double, capped by the usable cores (or by the suggestion, when it is
    more than the cores: workers that wait), without the value already in use."""
    suggested = max(1, int(suggested))
    values = {max(1, suggested // 2), suggested, suggested * 2}
    kept = sorted(v for v in values if v <= max(1, cores, suggested) and v != current)
    return tuple(kept) or ((suggested,) if suggested != current else ())


def _waiting(ctx: PlanContext) -> bool:
    share = ctx.facts.get("batch_making_cpu_share")
    return isinstance(share, float) and share < WAITING_CPU_SHARE


def _handoff_costlier(ctx: PlanContext) -> bool:
    receive, fetch = ctx.facts.get("batch_receive_per_batch"), ctx.facts.get("fetch_uncontended_per_batch")
    return isinstance(receive, float) and isinstance(fetch, float) and receive > fetch


def _candidate(ctx: PlanContext, workers: int) -> Candidate:
    threads = ctx.facts.get("torch_threads")
    left = None
    if ctx.facts.get("cpu_only") and not _waiting(ctx):
        left = threads_left(ctx.usable_cores, workers, threads)
    if left is None:
        return Candidate(f"num_workers={workers}", "num_workers", {"num_workers": workers})
    return Candidate(f"num_workers={workers} with torch threads={left}", "num_workers",
                     {"num_workers": workers, "torch_threads": left})


def _plan(ctx: PlanContext) -> list[Candidate]:
    suggested = ctx.facts.get("suggested_num_workers") or max(1, ctx.usable_cores - 1)
    counts = list(sweep(int(suggested), ctx.num_workers, ctx.usable_cores))
    if ctx.num_workers and _handoff_costlier(ctx):
        counts.insert(0, 0)
    return [_candidate(ctx, n) for n in counts]


class _NumWorkers(Injector):
    fix_id = "num_workers"

    def loader_arguments(self, arguments: dict) -> None:
        arguments["num_workers"] = int(self.value)
        self.applier.applied(self.fix_id, f"num_workers={arguments['num_workers']}")
        if not arguments["num_workers"]:
            # A script that set these with workers gets a valid loader without them.
            arguments.pop("persistent_workers", None)
            arguments.pop("prefetch_factor", None)


FIX = Fix(id="num_workers", what="DataLoader worker processes (num_workers)", injector=_NumWorkers,
          plan=_plan, order=0)
