"""faster_storage: read the data from local SSD or memory (advice only)."""

from __future__ import annotations

from .base import Fix

__all__ = ["FIX"]

FIX = Fix(id="faster_storage", what="the data on faster storage",
          not_injected_because="trainprobe cannot move your data",
          by_hand="copy the data set to local SSD or /dev/shm and run `trainprobe diagnose` on both copies to "
                  "compare steps/s")
