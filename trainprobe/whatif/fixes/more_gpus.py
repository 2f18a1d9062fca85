"""more_gpus: train on every GPU of the machine (advice only)."""

from __future__ import annotations

from .base import Fix

__all__ = ["FIX"]

FIX = Fix(id="more_gpus", what="training on every GPU",
          not_injected_because="using more GPUs needs DistributedDataParallel and torchrun",
          by_hand="convert the script to DistributedDataParallel, launch it with torchrun and compare with "
                  "`trainprobe diagnose`")
