"""The child side of the what-if: a probe plug-in that applies fixes to the unchanged script.

The what-if names this plug-in in the child's config (``FixApplier`` with
``{"fixes": {fix id: value}, "record_loss": bool}``); the probe builds it and
calls it at its hook points (see ``trainprobe/probe/plugins.py``). Each fix's
own module (``whatif/fixes/``) holds its :class:`~.fixes.base.Injector`;
this plug-in only dispatches the hooks to the injectors of the fixes asked
for, in registry order.

DataLoader fixes act when each loader is built (one patch of
``DataLoader.__init__`` for all of them), because its ``__setattr__`` refuses
some changes after ``__init__`` and worker settings are read when an iterator
is made. When the run ends, every patch is undone and every global flag a
fix changed is put back.

Every trial (the baseline too) records the loss: the scalar handed to
``torch.autograd.backward`` is kept detached on its device and converted to a
float only when the run ends, so recording costs no sync per step. It is
written as one ``loss`` event to the child's event stream, and what took
effect as one ``fixes_applied`` event.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any

from ..probe.plugins import PluginContext, ProbePlugin
from .fixes import RECORD_LOSS, REGISTRY, Injector

__all__ = ["FixApplier", "PLUGIN", "plugin_spec"]

PLUGIN = "trainprobe.whatif.inject:FixApplier"  # how the what-if names this plug-in to the probe
_MAX_LOSSES = 5000  # losses kept; a long window keeps its first ones


def _overrides(injector: Injector, hook: str) -> bool:
    return getattr(type(injector), hook) is not getattr(Injector, hook)


class FixApplier(ProbePlugin):
    """Applies the asked fixes in this process; one per child."""

    def __init__(self, options: dict) -> None:
        super().__init__()
        asked = dict(options.get("fixes") or {})
        self.record_loss = bool(options.get(RECORD_LOSS))
        self.asked = {k: v for k, v in asked.items() if v is not None and v is not False}
        self.applied_fixes: set[str] = set()
        self.details: set[str] = set()
        self.losses: list[tuple[int, str, Any]] = []  # (step, window, detached scalar)
        self.injectors: list[Injector] = []
        self._autocast_stack: list[list[Any]] = []
        self._prepared: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._notes: list[str] = []
        for fix_id, value in self.asked.items():
            fix = REGISTRY.get(fix_id)
            if fix is None:
                self._notes.append(f"what-if: a fix not known to this trainprobe was ignored: {fix_id}")
            elif not fix.injectable:
                self._notes.append(f"what-if: {fix_id} is not applied at run time: {fix.not_injected_because}")
        order = list(REGISTRY)
        self.injectors = [REGISTRY[k].injector(v, self) for k, v in  # type: ignore[misc]
                          sorted(self.asked.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 0)
                          if k in REGISTRY and REGISTRY[k].injectable]
        self._by_hook = {hook: [i for i in self.injectors if _overrides(i, hook)] for hook in (
            "loader_arguments", "prepare_model", "enter_forward", "copy_kwargs", "set_to_none",
            "before_optimizer_step", "at_boundary")}

    # -- lifetime -------------------------------------------------------------------
    def install(self, context: PluginContext) -> None:
        super().install(context)
        for text in self._notes:
            context.note(text)
        if self._by_hook["loader_arguments"]:
            self._patch_dataloader()
        for injector in self.injectors:
            injector.install()
        self.at_boundary()

    def _patch_dataloader(self) -> None:
        from torch.utils.data import DataLoader

        original = DataLoader.__init__
        signature = inspect.signature(original)
        injectors = self._by_hook["loader_arguments"]

        def __init__(loader, *args, **kwargs):
            try:
                bound = signature.bind(loader, *args, **kwargs)
            except TypeError:  # let DataLoader itself report the script's mistake
                return original(loader, *args, **kwargs)
            for injector in injectors:
                injector.loader_arguments(bound.arguments)
            return original(*bound.args, **bound.kwargs)

        self.patch(DataLoader, "__init__", __init__)

    def finish(self) -> None:
        """Write the losses and the fixes that took effect to the child's event stream."""
        if self.context is None:
            return
        if self.record_loss:
            values = []
            for step, window, tensor in self.losses:
                try:
                    values.append([step, window, float(tensor.float().item())])
                except Exception:  # pylint: disable=broad-except  # a loss we cannot read is left out
                    continue
            self.context.emit("loss", values=values)
            self.losses.clear()
        if self.asked:
            self.context.emit("fixes_applied", fixes=sorted(self.applied_fixes), asked=sorted(self.asked),
                              details=sorted(self.details))

    def uninstall(self) -> None:
        for injector in reversed(self.injectors):
            try:
                injector.restore()
            except Exception as exc:  # pylint: disable=broad-except  # restore the others anyway
                self.note(f"what-if: {injector.fix_id} could not be undone: {exc}")
        super().uninstall()

    # -- what injectors call ----------------------------------------------------------
    def keep_out_of_pickles(self, module: Any, handle: Any = None, attribute: Any = None) -> None:
        """A hook or an attribute a fix put on the script's module stays out of its pickles and copies."""
        if self.context is not None:
            self.context.keep_out_of_pickles(module, handle=handle, attribute=attribute)

    def applied(self, fix_id: str, detail: str) -> None:
        self.applied_fixes.add(fix_id)
        self.details.add(detail)

    def note(self, text: str) -> None:
        if self.context is not None:
            self.context.note(text)

    def count_autocast(self, device: str, dtype: str) -> None:
        reg = self.context.registry if self.context is not None else None
        if reg is not None:
            reg.autocast_forwards += 1
            reg.autocast_device = device
            reg.autocast_dtype = dtype

    # -- the probe's hook points ------------------------------------------------------
    def set_to_none(self, value: bool) -> bool:
        for injector in self._by_hook["set_to_none"]:
            value = injector.set_to_none(value)
        return value

    def copy_kwargs(self, tensor: Any, kwargs: dict) -> dict:
        for injector in self._by_hook["copy_kwargs"]:
            kwargs = injector.copy_kwargs(tensor, kwargs)
        return kwargs

    def before_forward(self, module: Any, args: tuple) -> None:
        self.at_boundary()
        if self._by_hook["prepare_model"] and module not in self._prepared \
                and next(module.parameters(), None) is not None:
            self._prepared.add(module)
            for injector in self._by_hook["prepare_model"]:
                injector.prepare_model(module)
        entered = [c for c in (i.enter_forward(module) for i in self._by_hook["enter_forward"]) if c is not None]
        self._autocast_stack.append(entered)

    def after_forward(self) -> None:
        if not self._autocast_stack:
            return
        for context in reversed(self._autocast_stack.pop()):
            context.__exit__(None, None, None)

    def before_backward(self, tensors: Any) -> None:
        if not self.record_loss or len(self.losses) >= _MAX_LOSSES or self.context is None:
            return
        import torch

        if isinstance(tensors, torch.Tensor) and tensors.numel() == 1:
            step, window = self.context.position()
            self.losses.append((step, window, tensors.detach()))

    def before_optimizer_step(self, optimizer: Any) -> None:
        for injector in self._by_hook["before_optimizer_step"]:
            injector.before_optimizer_step(optimizer)

    def at_boundary(self) -> None:
        for injector in self._by_hook["at_boundary"]:
            injector.at_boundary()


def plugin_spec(fixes: dict, record_loss: bool = True) -> Any:
    """The child-config entry that asks the probe to load this plug-in with ``fixes``."""
    from ..probe.plugins import PluginSpec

    return PluginSpec(factory=PLUGIN, options={"fixes": dict(fixes), RECORD_LOSS: record_loss})

