"""torch_threads: the training process's intra-op threads (torch.set_num_threads).

On a CPU-only run the model's math and the DataLoader workers share the cores:
more threads than the workers leave make both wait (OpenMP threads stall on the
one that lost its core). The num_workers fix uses this one beside it on a CPU-only
run; cpu-oversubscription names it alone.
"""

from __future__ import annotations

from .base import Candidate, Fix, Injector, PlanContext

__all__ = ["FIX", "threads_left"]


def threads_left(usable_cores: int, workers: int, current: int) -> int | None:
    """The threads that fit beside ``workers`` busy workers, or None when the current ones do."""
    left = max(1, int(usable_cores) - int(workers))
    return left if current and current > left else None


def _plan(ctx: PlanContext) -> list[Candidate]:
    suggested = ctx.facts.get("suggested_torch_threads")
    current = ctx.facts.get("torch_threads")
    if not isinstance(suggested, int) or not isinstance(current, int) or suggested >= current:
        return []
    return [Candidate(f"torch threads={suggested}", "torch_threads", {"torch_threads": suggested})]


class _TorchThreads(Injector):
    fix_id = "torch_threads"
    _before = None

    def install(self) -> None:
        self.at_boundary()

    def at_boundary(self) -> None:
        # Re-applied at each step's end: scripts set their own threads after start-up.
        import torch

        if torch.get_num_threads() != int(self.value):
            if self._before is None:
                self._before = torch.get_num_threads()
            torch.set_num_threads(int(self.value))
            self.applier.applied(self.fix_id, f"torch.set_num_threads({int(self.value)})")

    def restore(self) -> None:
        import torch

        if self._before is not None:
            torch.set_num_threads(self._before)


FIX = Fix(id="torch_threads", what="the training process's torch threads (torch.set_num_threads)",
          injector=_TorchThreads, plan=_plan, order=1)
