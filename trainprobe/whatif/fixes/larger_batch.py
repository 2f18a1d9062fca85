"""larger_batch: more samples per step, set where the training DataLoader is built.

The child changes the ``batch_size`` the script passes to ``DataLoader(...)`` (only for loaders built
with the training loader's batch size, and not with a ``batch_sampler``), and nothing else: the
learning rate, the schedule and the number of epochs stay as the script has them. So the trial
measures the speed a larger batch gives, in samples per second; whether the model trains as well
with it (the learning rate scaled to match, usually) is for the user to check in their own run, and
the what-if says so beside the figure.
"""

from __future__ import annotations

from .base import Candidate, Fix, Injector, PlanContext
from .loader_batch import scale_batch_size

__all__ = ["FIX"]


def _plan(ctx: PlanContext) -> list[Candidate]:
    current, target = ctx.facts.get("batch_size"), ctx.facts.get("suggested_batch_size")
    if not isinstance(current, int) or not isinstance(target, int) or target <= current:
        return []
    return [Candidate(f"batch_size={target}", "larger_batch", {"larger_batch": [current, target]})]


class _LargerBatch(Injector):
    fix_id = "larger_batch"

    def loader_arguments(self, arguments: dict) -> None:
        current, target = (int(v) for v in self.value)
        if arguments.get("batch_size", 1) != current:
            return  # not the training loader (a validation loader with its own batch size, say)
        detail = scale_batch_size(arguments, target / current)  # None: batches made by a batch_sampler
        if detail:
            self.applier.applied(self.fix_id, f"{detail} (learning rate not scaled)")


FIX = Fix(id="larger_batch", what="a larger batch size (samples per step)", injector=_LargerBatch, plan=_plan,
          numerics=True, per_sample=True,
          untried="no DataLoader batch size to change here (batches made by the script or by a batch_sampler), "
                  "or no larger batch suggested: edit the batch size by hand and compare samples/s",
          caveat="the learning rate was not scaled with the batch: scale it (the linear scaling rule is a common "
                 "start) and check the loss in your own run, since a larger batch changes the training itself",
          by_hand="edit the batch size (and scale the learning rate) and compare samples/s of two "
                  "`trainprobe diagnose` runs")
