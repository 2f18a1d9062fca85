"""amp_fp16: mixed precision in float16, which needs loss scaling: advice only."""

from __future__ import annotations

from .base import Fix

__all__ = ["FIX"]

FIX = Fix(
    id="amp_fp16", what="mixed precision: autocast to float16 with a GradScaler", numerics=True,
    not_injected_because="fp16 autocast needs loss scaling (torch.amp.GradScaler), which trainprobe cannot "
                          "add safely from outside the training loop",
    by_hand="add torch.autocast(dtype=torch.float16) around the forward and loss, with torch.amp.GradScaler "
            "for backward and step, then compare two `trainprobe diagnose` runs",
)
