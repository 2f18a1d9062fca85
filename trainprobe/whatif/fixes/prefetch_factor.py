"""prefetch_factor: a deeper queue of batches loaded ahead by each worker."""

from __future__ import annotations

from .base import Candidate, Fix, Injector, PlanContext

__all__ = ["FIX"]


def _plan(ctx: PlanContext) -> list[Candidate]:
    current = ctx.prefetch_factor or 2
    value = int(ctx.facts.get("suggested_prefetch_factor") or max(4, 2 * current))
    return [Candidate(f"prefetch_factor={value}", "prefetch_factor", {"prefetch_factor": value})]


class _PrefetchFactor(Injector):
    fix_id = "prefetch_factor"

    def loader_arguments(self, arguments: dict) -> None:
        if int(arguments.get("num_workers", 0) or 0) > 0:  # DataLoader refuses it without workers
            arguments["prefetch_factor"] = int(self.value)
            self.applier.applied(self.fix_id, f"prefetch_factor={arguments['prefetch_factor']}")


FIX = Fix(id="prefetch_factor", what="batches loaded ahead per worker (prefetch_factor)",
          injector=_PrefetchFactor, plan=_plan, needs_workers=True)
