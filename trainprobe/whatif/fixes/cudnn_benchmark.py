"""cudnn_benchmark: let cuDNN time its convolution algorithms once and keep the fastest."""

from __future__ import annotations

from .base import Fix, Injector

__all__ = ["FIX"]


class _CudnnBenchmark(Injector):
    fix_id = "cudnn_benchmark"
    _before = None

    def at_boundary(self) -> None:
        import torch

        if not torch.backends.cudnn.benchmark:  # re-applied: scripts set it late
            if self._before is None:
                self._before = torch.backends.cudnn.benchmark
            torch.backends.cudnn.benchmark = True
            self.applier.applied(self.fix_id, "torch.backends.cudnn.benchmark=True")

    def restore(self) -> None:
        import torch

        if self._before is not None:
            torch.backends.cudnn.benchmark = self._before


FIX = Fix(id="cudnn_benchmark", what="torch.backends.cudnn.benchmark=True", injector=_CudnnBenchmark,
          gpu_only="cudnn only runs on a GPU, and this run used none")
