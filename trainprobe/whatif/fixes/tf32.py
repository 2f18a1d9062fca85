"""tf32: fp32 matmuls and convolutions in TF32 on Ampere and newer GPUs."""

from __future__ import annotations

from .base import Fix, Injector

__all__ = ["FIX"]


class _Tf32(Injector):
    fix_id = "tf32"
    _before = None

    def at_boundary(self) -> None:
        import torch

        if torch.get_float32_matmul_precision() == "highest" or not torch.backends.cudnn.allow_tf32:
            if self._before is None:
                self._before = (torch.get_float32_matmul_precision(), torch.backends.cudnn.allow_tf32)
            torch.set_float32_matmul_precision("high")
            torch.backends.cudnn.allow_tf32 = True
            self.applier.applied(self.fix_id, "torch.set_float32_matmul_precision('high'), cudnn.allow_tf32=True")

    def restore(self) -> None:
        import torch

        if self._before is not None:
            precision, allow = self._before
            torch.set_float32_matmul_precision(precision)
            torch.backends.cudnn.allow_tf32 = allow


FIX = Fix(id="tf32", what="TF32 for fp32 matmuls and convolutions", injector=_Tf32, numerics=True,
          gpu_only="TF32 is a GPU number format (Ampere and newer), and this run used no GPU")
