"""ddp: DistributedDataParallel with one process per GPU instead of DataParallel (advice only)."""

from __future__ import annotations

from .base import Fix

__all__ = ["FIX"]

FIX = Fix(id="ddp", what="DistributedDataParallel, one process per GPU",
          not_injected_because="DistributedDataParallel needs a launcher (torchrun) and one process per GPU",
          by_hand="convert the script to DistributedDataParallel, launch it with torchrun and compare with "
                  "`trainprobe diagnose`")
