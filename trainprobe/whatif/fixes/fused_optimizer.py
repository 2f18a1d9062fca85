"""fused_optimizer: the optimizer's fused (else foreach) kernels instead of one kernel per parameter."""

from __future__ import annotations

import weakref
from typing import Any, Optional

from .base import Fix, Injector

__all__ = ["FIX"]


def _fused_devices() -> set[str]:
    try:
        from torch.utils._foreach_utils import _get_fused_kernels_supported_devices

        return set(_get_fused_kernels_supported_devices())
    except Exception:  # pylint: disable=broad-except  # an older torch: CUDA only
        return {"cuda"}


def use_fused_kernels(optimizer: Any) -> Optional[str]:
    """Ask for fused kernels (else foreach) in every param group; before the first step only."""
    defaults = getattr(optimizer, "defaults", {}) or {}
    if defaults.get("fused") or getattr(optimizer, "state", None):
        return None  # already fused, or state made by non-fused steps (its 'step' may live on the CPU)
    params = [p for g in optimizer.param_groups for p in g.get("params", [])]
    devices = {p.device.type for p in params}
    floating = all(p.is_floating_point() for p in params)
    differentiable = any(g.get("differentiable") for g in optimizer.param_groups)
    if "fused" in defaults and floating and not differentiable and devices and devices <= _fused_devices():
        for group in (*optimizer.param_groups, defaults):
            group["fused"] = True
            group["foreach"] = False
        optimizer._step_supports_amp_scaling = True
        return f"{type(optimizer).__name__}(fused=True)"
    if "foreach" in defaults and not defaults.get("foreach") and not differentiable:
        for group in (*optimizer.param_groups, defaults):
            group["foreach"] = True
        return f"{type(optimizer).__name__}(foreach=True)"
    return None


class _FusedOptimizer(Injector):
    fix_id = "fused_optimizer"

    def __init__(self, value: Any, applier: Any) -> None:
        super().__init__(value, applier)
        self._seen: "weakref.WeakSet[Any]" = weakref.WeakSet()

    def before_optimizer_step(self, optimizer: Any) -> None:
        if optimizer in self._seen:
            return
        self._seen.add(optimizer)
        detail = use_fused_kernels(optimizer)
        if detail:
            self.applier.applied(self.fix_id, detail)
        else:
            self.applier.note(f"what-if: {type(optimizer).__name__} has no fused or foreach kernels to switch to")


FIX = Fix(id="fused_optimizer", what="fused (or foreach) optimizer kernels", injector=_FusedOptimizer)
