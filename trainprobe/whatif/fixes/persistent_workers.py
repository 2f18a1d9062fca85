"""persistent_workers: keep DataLoader workers alive between epochs."""

from __future__ import annotations

from .base import Fix, Injector

__all__ = ["FIX"]


class _PersistentWorkers(Injector):
    fix_id = "persistent_workers"

    def loader_arguments(self, arguments: dict) -> None:
        if int(arguments.get("num_workers", 0) or 0) > 0:  # DataLoader refuses it without workers
            arguments["persistent_workers"] = True
            self.applier.applied(self.fix_id, "persistent_workers=True")


FIX = Fix(id="persistent_workers", what="DataLoader workers kept between epochs (persistent_workers)",
          injector=_PersistentWorkers, needs_workers=True)
