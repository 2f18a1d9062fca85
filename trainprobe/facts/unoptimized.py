"""Facts about weights that get gradients no optimizer applies (probe/unoptimized.py)."""

from __future__ import annotations

from ..record import RunRecord
from .code import where

__all__ = ["FAMILY", "FACTS", "compute"]

FAMILY = "compute"

FACTS = {
    "unoptimized_grad_params": ("count", "Weights (elements) that had gradients just after an optimizer step while "
                                "no optimizer the script built held them: a perceptual-loss network or a teacher "
                                "left trainable, a backbone outside an optimizer built from the head alone. None "
                                "where there were none, or the probe did not read them (a trace, an older record)."),
    "unoptimized_grad_share": ("share", "Their share of all the weights that had gradients."),
    "unoptimized_grad_where": ("text", "The modules that hold them, the largest first: "
                               "'_vgg (torchvision.models.vgg.VGG), 134,260,544 weights'."),
    "unoptimized_grad_backward": ("s", "Backward per step of the model's direct children whose weights with "
                                  "gradients no optimizer holds, all of them (profiled window); their "
                                  "weight-gradient products are part of it."),
    "unoptimized_grad_model_at": ("text", "Where the model that holds most of them was built: 'file.py:line'."),
}


def compute(record: RunRecord) -> dict[str, object]:
    found = record.settings.unoptimized_grads
    if found is None or not found.params:
        return {}
    with_grads = found.params + found.optimized_params
    times = [m.backward_per_step for m in record.profiler.module_times
             if m.name in found.children and m.backward_per_step is not None]
    return {
        "unoptimized_grad_params": found.params,
        "unoptimized_grad_share": found.params / with_grads if with_grads else None,
        "unoptimized_grad_where": "; ".join(f"{place}, {n:,} weights" for place, n in found.modules.items()),
        "unoptimized_grad_backward": sum(times) if times else None,
        "unoptimized_grad_model_at": where(found.model_built_at, record.invocation.cwd),
    }
