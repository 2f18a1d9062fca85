"""What a what-if fix is: one module per fix, built from these pieces.

A :class:`Fix` says everything about one fix in one place:

* its ``id`` (what a rule names in ``fix_id``) and, for people, ``what`` it does;
* how to plan it: which values to try against the baseline (``plan``);
* when it is not worth trying: ``gpu_only`` (it only speeds up GPU work) and
  ``needs_workers`` (a DataLoader setting refused without workers);
* ``numerics``: it changes the math a little, so the what-if shows the loss beside the speed;
* ``per_sample``: it changes the samples per step (the batch size), so its gain is in samples per
  second, and ``caveat``: what its measurement leaves out, said beside the figure;
* ``memory``: it is a memory fix (it costs time to save memory), so its trials, and their baselines, run the
  counting step and the what-if reports each one's peak memory beside its speed;
* ``companions``: other fixes that answer the same finding and are measured beside it (a memory finding
  gets activation checkpointing and gradient accumulation, each measured on its own);
* how it is applied in the script's process (``injector``, an :class:`Injector` subclass), or,
  when it cannot be applied at run time, why not and ``by_hand``: how to try it yourself.

The parent side (planning) never imports torch; injectors import it when they run in the child.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

__all__ = ["Candidate", "PlanContext", "Fix", "Injector", "try_once", "GENERIC_BY_HAND"]

GENERIC_BY_HAND = ("trainprobe cannot apply this fix at run time: apply the advice to a copy of the script "
                   "and compare steps/s of `trainprobe diagnose` on both")


@dataclass(frozen=True)
class Candidate:
    """One configuration to measure against the baseline."""

    key: str  # "num_workers=2", "set_to_none", "combined"
    fix_id: str
    fixes: dict = field(default_factory=dict)  # fix id -> value, what the child applies


@dataclass(frozen=True)
class PlanContext:
    """What planning may read: the run's training loader and the diagnosis's facts."""

    num_workers: int = 0
    prefetch_factor: Optional[int] = None
    usable_cores: int = 1
    facts: dict = field(default_factory=dict)


def try_once(fix_id: str) -> Callable[[PlanContext], list[Candidate]]:
    """The usual plan: try the fix switched on, once per round."""
    return lambda _ctx: [Candidate(fix_id, fix_id, {fix_id: True})]


class Injector:
    """One fix applied in the script's process. ``applier`` is the what-if's probe plug-in: it
    records what took effect (``applier.applied(fix_id, detail)``) and patches torch for the fix
    (``applier.patch``, undone when the run ends). Every hook is optional."""

    fix_id = ""

    def __init__(self, value: Any, applier: Any) -> None:
        self.value = value
        self.applier = applier

    def install(self) -> None:
        """Before the script starts."""

    def loader_arguments(self, arguments: dict) -> None:
        """A DataLoader is being built with ``arguments`` (by name): change them in place."""

    def prepare_model(self, module: Any) -> None:
        """First forward of a module with parameters."""

    def enter_forward(self, module: Any) -> Optional[Any]:
        """A top-level forward starts: a context manager to enter around it, or None."""
        return None

    def copy_kwargs(self, tensor: Any, kwargs: dict) -> dict:
        return kwargs

    def set_to_none(self, value: bool) -> bool:
        return value

    def before_optimizer_step(self, optimizer: Any) -> None:
        """Before an optimizer's step."""

    def at_boundary(self) -> None:
        """After each optimizer step (scripts set global flags late: re-apply them)."""

    def restore(self) -> None:
        """The run ended: put back any global setting the fix changed."""


@dataclass(frozen=True)
class Fix:
    id: str
    what: str  # one line, for people: "more DataLoader workers"
    injector: Optional[type] = None  # None: cannot be applied at run time
    plan: Optional[Callable[[PlanContext], list[Candidate]]] = None  # default: try it switched on
    gpu_only: str = ""  # why it only helps a run that used a GPU ("" when it helps any run)
    needs_workers: bool = False  # a DataLoader setting that needs num_workers > 0
    numerics: bool = False  # changes the math a little: show the loss beside the speed
    per_sample: bool = False  # changes the samples per step (the batch size): its gain is in samples/s
    caveat: str = ""  # what the measurement leaves out, said beside it ("the learning rate was not scaled")
    untried: str = "no other value to try here"  # why, when its plan finds no value to try on this run
    memory: bool = False  # saves memory (at a cost in time): measure the peak memory beside the speed
    companions: tuple[str, ...] = ()  # other fixes measured beside this one for the same finding
    not_injected_because: str = ""  # why a fix trainprobe knows is not applied at run time
    by_hand: str = GENERIC_BY_HAND  # how to try it yourself
    order: int = 50  # injectors act in this order (num_workers first: others read its value)
    trial_seconds: float = 0.0  # a trial with it needs this many seconds more (compiling happens in its warm-up)

    @property
    def injectable(self) -> bool:
        return self.injector is not None

    def candidates(self, ctx: PlanContext) -> list[Candidate]:
        return (self.plan or try_once(self.id))(ctx)
