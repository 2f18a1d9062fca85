"""faster_decode: a faster image decoder (pillow-SIMD, decoding on the GPU; advice only)."""

from __future__ import annotations

from .base import Fix

__all__ = ["FIX"]

FIX = Fix(id="faster_decode", what="faster image decoding",
          not_injected_because="the decoder is a package installed in your environment",
          by_hand="image decoding speed depends on the installed Pillow (pillow-SIMD) or on decoding on the GPU "
                  "(torchvision.io.decode_jpeg); install it in a separate environment and run "
                  "`trainprobe diagnose` there to compare")
