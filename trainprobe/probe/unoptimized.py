"""Weights that get gradients no optimizer applies.

A module whose weights keep ``requires_grad=True`` while no optimizer holds them costs, in every backward, the
weight-gradient product of each of its layers, and its ``.grad`` grows without end: a perceptual-loss network
(muse-maskgit's VQGanVAE makes its VGG16 lazily, after its trainer built the Adams, 134 M weights that nothing
updates; test set 19), a teacher left trainable, a backbone whose optimizer was built from the head's parameters
alone. The weights' gradients are read just after the run's first optimizer steps, where the step's backward has
left them and no ``zero_grad`` has run yet (a closure that runs forward and backward inside ``step()``,
Lightning's, has run by then too); never per step after those.

A run whose gradients all go to weights no optimizer holds is not read as this: an optimizer that keeps its own
fp32 master copies (apex, DeepSpeed) or a flattened one (FSDP), or a script that updates the weights by hand.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Optional

from ..record import UnoptimizedGrads

__all__ = ["GradTally", "CHECKS"]

CHECKS = 3  # optimizer steps read: the first ones, which a GAN's two optimizers or a lazily built module share
_MODULES_KEPT = 6


def _qualname(obj: Any) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _held(optimizers: Iterable[Any]) -> set[int]:
    held: set[int] = set()
    for optimizer in optimizers:
        for group in getattr(optimizer, "param_groups", ()) or ():
            for param in group.get("params", ()) or ():
                held.add(id(param))
    return held


class GradTally:
    """The reading of weights with gradients outside every optimizer, at the first ``CHECKS`` optimizer steps."""

    def __init__(self) -> None:
        self.checks = 0
        self.result: Optional[UnoptimizedGrads] = None

    def check(self, models: Iterable[tuple[Any, Optional[str]]], optimizers: Iterable[Any]) -> None:
        """``models``: the trained models (unwrapped) with the line that built each. Never raises."""
        if self.checks >= CHECKS:
            return
        self.checks += 1
        try:
            reading = _read(list(models), _held(optimizers))
        except Exception:  # pylint: disable=broad-except  # a reading is a nicety; the run goes on
            return
        if reading is not None and (self.result is None or reading.params > self.result.params):
            self.result = reading


def _read(models: list[tuple[Any, Optional[str]]], held: set[int]) -> Optional[UnoptimizedGrads]:
    seen: set[int] = set()
    tensors = 0
    # (model index, direct child's attribute; "" for the model's own weights) -> [elements no optimizer holds,
    # elements one does]
    children: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0])
    # The largest model first: a module that two models share (a child also called on its own) is named by
    # its place in the largest.
    ordered = sorted(enumerate(models), key=lambda im: -sum(p.numel() for p in im[1][0].parameters()))
    for index, (model, _built_at) in ordered:
        for name, param in model.named_parameters():
            if id(param) in seen:
                continue
            seen.add(id(param))
            if not param.requires_grad or param.grad is None:
                continue
            child = name.split(".", 1)[0] if "." in name else ""
            inside = id(param) in held
            children[(index, child)][1 if inside else 0] += param.numel()
            tensors += 0 if inside else 1
    unoptimized = sum(out for out, _ in children.values())
    optimized = sum(inside for _, inside in children.values())
    if not unoptimized or not optimized:
        return None  # nothing outside the optimizers, or nothing inside them (master copies, updates by hand)
    per_model: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for (index, _child), (out, inside) in children.items():
        per_model[index][0] += out
        per_model[index][1] += inside
    # A model no optimizer holds any weight of (a teacher called on its own) is named as a whole; in the others,
    # the direct children that hold such weights.
    named: dict[str, int] = defaultdict(int)
    for (index, child), (out, _inside) in children.items():
        if not out:
            continue
        model = models[index][0]
        if not per_model[index][1]:
            named[f"{_qualname(model)} (a model of its own)"] += out
        else:
            owner = model.get_submodule(child) if child else model
            named[f"{child or '(the model itself)'} ({_qualname(owner)})"] += out
    largest = sorted(named.items(), key=lambda kv: -kv[1])[:_MODULES_KEPT]
    top_model = max(per_model, key=lambda i: per_model[i][0])
    return UnoptimizedGrads(
        params=unoptimized, tensors=tensors, optimized_params=optimized,
        modules=dict(largest),
        children=tuple(sorted(child for (_i, child), (out, inside) in children.items()
                              if child and out and not inside)),
        model_built_at=models[top_model][1],
    )
