"""activation_checkpointing: the largest repeated blocks recompute their activations in backward.

The diagnosis names the container of the repeated blocks whose forwards keep the most for backward
(``checkpoint_container``: "blocks", "transformer.h"); in the script's process each block of it runs
its forward through ``torch.utils.checkpoint.checkpoint(..., use_reentrant=False)`` while training
with gradients (evaluation and no-grad forwards run as before). The blocks then keep only their
inputs for backward and run their forward a second time there: less memory, more compute.
"""

from __future__ import annotations

from typing import Any

from .base import Candidate, Fix, Injector, PlanContext

__all__ = ["FIX", "checkpoint_blocks"]


def _repeated(container: Any) -> list[Any]:
    """The largest group of same-type children with children and parameters of their own (the census's blocks)."""
    groups: dict[type, list[Any]] = {}
    for child in container.children():
        if any(True for _ in child.children()) and any(True for _ in child.parameters()):
            groups.setdefault(type(child), []).append(child)
    repeated = [blocks for blocks in groups.values() if len(blocks) >= 2]
    return max(repeated, key=len) if repeated else []


def _blocks(model: Any, container: Any) -> list[Any]:
    """The repeated blocks of ``container`` in ``model`` (its name as the census gives it: a path in the model,
    or the model's class name for the model itself); ``True``: of the ModuleList or Sequential whose repeated
    blocks hold the most parameters."""
    import torch

    if container is True:
        groups = [_repeated(m) for m in model.modules() if isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential))]
        groups = [g for g in groups if g]
        return max(groups, key=lambda g: sum(p.numel() for b in g for p in b.parameters())) if groups else []
    if container == type(model).__name__:
        return _repeated(model)
    try:
        return _repeated(model.get_submodule(str(container)))
    except AttributeError:
        return []


def checkpoint_blocks(model: Any, container: Any) -> list[Any]:
    """Make every repeated block of ``container`` checkpoint its training forward; the blocks wrapped (``del
    block.forward`` undoes it)."""
    import torch
    from torch.utils.checkpoint import checkpoint

    blocks = _blocks(model, container)
    for block in blocks:
        original = block.forward

        def forward(*args, _original=original, _block=block, **kwargs):
            if _block.training and torch.is_grad_enabled():
                return checkpoint(_original, *args, use_reentrant=False, **kwargs)
            return _original(*args, **kwargs)

        block.forward = forward
    return blocks


def _plan(ctx: PlanContext) -> list[Candidate]:
    """The container the counting step named, else the one the child finds with the most parameters."""
    container = ctx.facts.get("checkpoint_container")
    if isinstance(container, str) and container:
        return [Candidate(f"activation_checkpointing={container}", "activation_checkpointing",
                          {"activation_checkpointing": container})]
    return [Candidate("activation_checkpointing", "activation_checkpointing", {"activation_checkpointing": True})]


class _ActivationCheckpointing(Injector):
    fix_id = "activation_checkpointing"

    def __init__(self, value: Any, applier: Any) -> None:
        super().__init__(value, applier)
        self.wrapped: list[Any] = []

    def prepare_model(self, module: Any) -> None:
        blocks = checkpoint_blocks(module, self.value)
        for block in blocks:
            self.applier.keep_out_of_pickles(block, attribute="forward")
        if blocks:
            self.wrapped.extend(blocks)
            where = "the largest repeated blocks" if self.value is True else str(self.value)
            self.applier.applied(self.fix_id, f"torch.utils.checkpoint around the forwards of {len(blocks)} "
                                 f"blocks of {where}")

    def restore(self) -> None:
        for block in self.wrapped:
            block.__dict__.pop("forward", None)
        self.wrapped.clear()


FIX = Fix(id="activation_checkpointing", what="activation checkpointing of the largest repeated blocks",
          injector=_ActivationCheckpointing, plan=_plan, memory=True, companions=("grad_accumulation",))
