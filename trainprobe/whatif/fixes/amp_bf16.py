"""amp_bf16: the forward under torch.autocast with bfloat16 (no loss scaling needed)."""

from __future__ import annotations

from typing import Any, Optional

from .base import Fix, Injector

__all__ = ["FIX"]


def _device(module: Any) -> Optional[str]:
    param = next(module.parameters(), None)
    return param.device.type if param is not None else "cpu"


class _AmpBf16(Injector):
    fix_id = "amp_bf16"

    def enter_forward(self, module: Any) -> Optional[Any]:
        import torch

        device = _device(module)
        if device not in ("cuda", "cpu") or torch.is_autocast_enabled(device):
            return None  # the script's own autocast (or an outer forward's) stays in charge
        if device == "cuda" and not torch.cuda.is_bf16_supported():
            return None
        context = torch.autocast(device, dtype=torch.bfloat16)
        context.__enter__()
        self.applier.applied(self.fix_id, f"torch.autocast('{device}', dtype=torch.bfloat16) around the forward")
        if module.training and torch.is_grad_enabled():
            # The probe counted autocast before this hook ran: count ours.
            self.applier.count_autocast(device, "bfloat16")
        return context


FIX = Fix(id="amp_bf16", what="mixed precision: autocast to bfloat16", injector=_AmpBf16, numerics=True,
          by_hand="wrap the forward and the loss in torch.autocast(device, dtype=torch.bfloat16) and compare "
                  "two `trainprobe diagnose` runs")
