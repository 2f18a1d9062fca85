"""larger_batch: more samples per step (advice only: it changes the training itself)."""

from __future__ import annotations

from .base import Fix

__all__ = ["FIX"]

FIX = Fix(id="larger_batch", what="a larger batch size",
          not_injected_because="a larger batch changes the training itself (learning rate, steps per epoch)",
          by_hand="edit the batch size (and scale the learning rate) and compare samples/s of two "
                  "`trainprobe diagnose` runs")
