"""compile: torch.compile the model's forward."""

from __future__ import annotations

import weakref
from typing import Any

from .base import Fix, Injector

__all__ = ["FIX"]


def _already_compiled(module: Any) -> bool:
    return type(module).__name__ == "OptimizedModule" or getattr(module, "_compiled_call_impl", None) is not None


class _Compile(Injector):
    fix_id = "compile"

    def __init__(self, value: Any, applier: Any) -> None:
        super().__init__(value, applier)
        self._compiled: "weakref.WeakSet[Any]" = weakref.WeakSet()

    def prepare_model(self, module: Any) -> None:
        import torch

        if _already_compiled(module):
            return
        # Compile forward, not the module: the probe's hooks around the call stay eager, so the step
        # is still timed and autocast still wraps it.
        module.forward = torch.compile(module.forward)
        self._compiled.add(module)
        self.applier.applied(self.fix_id, f"torch.compile({type(module).__name__}.forward)")

    def restore(self) -> None:
        for module in list(self._compiled):
            if "forward" in vars(module):
                del module.forward  # the class's own forward again


# Compiling a model takes tens of seconds on a CPU (about 35 s for a small one here): its trials get
# that much longer, and verify.py reports the cost and when it pays back.
FIX = Fix(id="compile", what="torch.compile of the model's forward", injector=_Compile, numerics=True,
          trial_seconds=120.0)
