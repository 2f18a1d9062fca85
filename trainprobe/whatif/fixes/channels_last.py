"""channels_last: convolution models and their 4-d inputs in NHWC memory format."""

from __future__ import annotations

from typing import Any, Optional

from .base import Fix, Injector

__all__ = ["FIX"]


def _to_channels_last(module: Any, args: tuple) -> Optional[tuple]:
    import torch

    if not any(isinstance(a, torch.Tensor) and a.dim() == 4 for a in args):
        return None
    return tuple(a.contiguous(memory_format=torch.channels_last)
                 if isinstance(a, torch.Tensor) and a.dim() == 4 else a for a in args)


class _ChannelsLast(Injector):
    fix_id = "channels_last"

    def __init__(self, value: Any, applier: Any) -> None:
        super().__init__(value, applier)
        self._handles: list[Any] = []

    def prepare_model(self, module: Any) -> None:
        import torch

        if not any(isinstance(m, torch.nn.Conv2d) for m in module.modules()):
            return
        module.to(memory_format=torch.channels_last)
        handle = module.register_forward_pre_hook(_to_channels_last)
        self._handles.append(handle)
        self.applier.keep_out_of_pickles(module, handle=handle)
        self.applier.applied(self.fix_id, f"{type(module).__name__} and its 4-d inputs in channels_last")

    def restore(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()


FIX = Fix(id="channels_last", what="channels_last memory format for convolutions", injector=_ChannelsLast)
