"""pin_memory: page-locked batches and non_blocking copies to the GPU."""

from __future__ import annotations

from typing import Any

from .base import Fix, Injector

__all__ = ["FIX"]


class _PinMemory(Injector):
    fix_id = "pin_memory"

    def loader_arguments(self, arguments: dict) -> None:
        import torch

        if torch.cuda.is_available():
            arguments["pin_memory"] = True
            self.applier.applied(self.fix_id, "pin_memory=True")

    def copy_kwargs(self, tensor: Any, kwargs: dict) -> dict:
        if "non_blocking" in kwargs:
            return kwargs
        try:
            pinned = tensor.is_pinned()
        except Exception:  # pylint: disable=broad-except  # an odd tensor subclass: leave it alone
            pinned = False
        if not pinned:
            return kwargs
        self.applier.applied(self.fix_id, "non_blocking=True copies from pinned memory")
        return {**kwargs, "non_blocking": True}


FIX = Fix(id="pin_memory", what="pinned DataLoader batches with non_blocking copies", injector=_PinMemory,
          gpu_only="pinned memory only speeds up copies to a GPU, and this run used none")
