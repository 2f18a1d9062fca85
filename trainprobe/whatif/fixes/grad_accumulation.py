"""grad_accumulation: gradient accumulation at half the batch: the same update from two micro-batches.

Every DataLoader is built with half its batch size (loader_batch.py: where the script gives a
number), and the optimizer updates on every second ``step()`` call: the first of each pair keeps
its gradients (its ``step`` and the ``zero_grad`` after it do nothing), the second averages the two
micro-batches' gradients (each ×½, the mean of two mean losses) and updates. So each update sees the
same samples as before, with half the activations in memory at a time.

Not rescaled: a learning-rate scheduler stepped every iteration runs twice as fast (it is stepped
per micro-batch), a loss summed rather than averaged over the batch gets the ×½ all the same, batch
norm sees the micro-batch, and a GradScaler's per-step bookkeeping is left as it is. The trials
compare speed and peak memory, not the training's outcome.
"""

from __future__ import annotations

import types
from typing import Any

from .base import Candidate, Fix, Injector, PlanContext
from .loader_batch import scale_batch_size

__all__ = ["FIX"]

ACCUMULATION = 2  # micro-batches per update: half the batch each


def _plan(_ctx: PlanContext) -> list[Candidate]:
    return [Candidate(f"grad_accumulation={ACCUMULATION}", "grad_accumulation", {"grad_accumulation": ACCUMULATION})]


class _GradAccumulation(Injector):
    fix_id = "grad_accumulation"

    def __init__(self, value: Any, applier: Any) -> None:
        super().__init__(value, applier)
        self.micro_batches = max(2, int(value)) if not isinstance(value, bool) else ACCUMULATION
        self.calls: dict[int, int] = {}  # id(optimizer) -> step() calls
        self.pending: set[int] = set()  # optimizers whose last micro-batch's gradients wait for the next one's
        self.halved = False

    def loader_arguments(self, arguments: dict) -> None:
        detail = scale_batch_size(arguments, 1 / self.micro_batches)
        if detail:
            self.halved = True
            self.applier.note(f"what-if: {detail} (gradient accumulation over {self.micro_batches} micro-batches)")

    def install(self) -> None:
        import torch

        injector = self
        for owner in (torch.optim.Optimizer, torch.nn.Module):
            original = owner.zero_grad

            def zero_grad(obj, *args, _original=original, **kwargs):
                # Between the micro-batches of one update, keep the first one's gradients: an optimizer's own
                # while it waits, a model's while any optimizer waits.
                if id(obj) in injector.pending or (injector.pending and isinstance(obj, torch.nn.Module)):
                    return None
                return _original(obj, *args, **kwargs)

            self.applier.patch(owner, "zero_grad", zero_grad)
        original_init = torch.optim.Optimizer.__init__

        def __init__(optimizer, *args, **kwargs):
            original_init(optimizer, *args, **kwargs)
            injector.wrap(optimizer)

        self.applier.patch(torch.optim.Optimizer, "__init__", __init__)

    def wrap(self, optimizer: Any) -> None:
        """Update on every ``micro_batches``-th step() of this optimizer, with the gradients averaged."""
        original = optimizer.step
        injector = self

        def step(_self, *args, **kwargs):
            if not injector.halved:
                return original(*args, **kwargs)  # no loader batch was halved: nothing to accumulate
            key = id(optimizer)
            injector.calls[key] = injector.calls.get(key, 0) + 1
            if injector.calls[key] % injector.micro_batches:
                injector.pending.add(key)
                return None
            injector.pending.discard(key)
            _scale_gradients(optimizer, 1 / injector.micro_batches)
            injector.applier.applied(injector.fix_id, f"gradients accumulated over {injector.micro_batches} "
                                     "micro-batches of half the batch")
            return original(*args, **kwargs)

        # A bound method, as the class's: LR schedulers wrap optimizer.step and read its __func__.
        optimizer.step = types.MethodType(step, optimizer)


def _scale_gradients(optimizer: Any, factor: float) -> None:
    for group in optimizer.param_groups:
        for p in group.get("params", ()):
            if getattr(p, "grad", None) is not None:
                p.grad.mul_(factor)


FIX = Fix(id="grad_accumulation", what="gradient accumulation at half the batch", injector=_GradAccumulation,
          plan=_plan, memory=True, numerics=True, companions=("activation_checkpointing",))
