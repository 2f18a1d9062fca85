"""cheaper_augmentation: fewer or cheaper transforms, or transforms on the GPU (advice only)."""

from __future__ import annotations

from .base import Fix

__all__ = ["FIX"]

FIX = Fix(id="cheaper_augmentation", what="cheaper data augmentation",
          not_injected_because="the transforms are your script's code",
          by_hand="move the augmentations to the GPU or make them cheaper in the script, then compare two "
                  "`trainprobe diagnose` runs")
