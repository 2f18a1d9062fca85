"""set_to_none: zero_grad(set_to_none=True) frees the gradients instead of filling them with zeros."""

from __future__ import annotations

from .base import Fix, Injector

__all__ = ["FIX"]


class _SetToNone(Injector):
    fix_id = "set_to_none"

    def set_to_none(self, value: bool) -> bool:
        self.applier.applied(self.fix_id, "zero_grad(set_to_none=True)")
        return True


FIX = Fix(id="set_to_none", what="zero_grad(set_to_none=True)", injector=_SetToNone)
