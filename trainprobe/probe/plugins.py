"""Plug-ins to the probe's child: code that acts at the probe's hook points.

The probe measures; a plug-in may also act (the what-if applies its fixes
this way). The probe knows plug-ins only by this interface and by name: the
parent puts ``"package.module:factory"`` and its options in the child's
config (``ChildConfig.plugins``), and the child imports it, builds it with
``factory(options)`` and calls :meth:`ProbePlugin.install`. The probe never
imports a plug-in's package itself, and a plug-in never patches the probe.

A plug-in that patches torch itself (a DataLoader argument, a global flag)
records each patch with :meth:`ProbePlugin.patch` and gets it undone by
:meth:`ProbePlugin.uninstall`, which the probe calls when the script has
ended.

Every hook has a do-nothing default here; hooks run inside the training
loop, so a plug-in should keep them cheap.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..jsonio import JsonMixin

__all__ = ["PluginSpec", "PluginContext", "ProbePlugin", "load_plugins", "Plugins"]


@dataclass(frozen=True)
class PluginSpec(JsonMixin):
    """A plug-in named in the child's config: ``factory`` is "package.module:callable"."""

    factory: str = ""
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class PluginContext:
    """What the probe lends a plug-in: its event stream and the counts it keeps."""

    emit: Callable[..., None]  # emit(kind, **fields): one event in the child's stream
    registry: Any  # probe.settings.Registry: what the script built and how it used it
    position: Callable[[], tuple[int, str]]  # (steps so far, current window)
    phase: Callable[[], Optional[str]] = lambda: None  # the step phase the loop is in (None: between phases)
    t0: float = 0.0  # the parent's launch time (time.monotonic()): events' times are relative to it
    # keep_out_of_pickles(module, handle=None, attribute=None): a hook handle or an instance attribute
    # a plug-in put on the script's module, left out when the script pickles or copies that module (its
    # torch.save(model) must not hold trainprobe, nor fail on a closure of ours). Outside the probe: nothing.
    keep_out_of_pickles: Callable[..., None] = lambda module, handle=None, attribute=None: None

    def note(self, text: str) -> None:
        try:
            self.emit("note", text=text)
        except Exception:  # pylint: disable=broad-except  # a note must never break the run
            pass


class ProbePlugin:
    """The hook points. Subclasses override what they need."""

    def __init__(self) -> None:
        self._patches: list[tuple[Any, str, Any]] = []
        self.context: Optional[PluginContext] = None

    # -- lifetime -------------------------------------------------------------------
    def install(self, context: PluginContext) -> None:
        """Called once, before the script starts."""
        self.context = context

    def finish(self) -> None:
        """Called once the script has ended, before :meth:`uninstall`: emit results here."""

    def patch(self, owner: Any, name: str, replacement: Any) -> None:
        """Replace ``owner.name``; :meth:`uninstall` puts the original back."""
        self._patches.append((owner, name, getattr(owner, name)))
        setattr(owner, name, replacement)

    def uninstall(self) -> None:
        """Undo every patch, newest first."""
        for owner, name, original in reversed(self._patches):
            setattr(owner, name, original)
        self._patches.clear()

    # -- hook points (the probe's hooks call these) ---------------------------------
    def set_to_none(self, value: bool) -> bool:
        """``zero_grad(set_to_none=value)`` is about to run: the value to use."""
        return value

    def copy_kwargs(self, tensor: Any, kwargs: dict) -> dict:
        """A host-to-device copy is about to run (CUDA only): the keyword arguments to use."""
        return kwargs

    def before_forward(self, module: Any, args: tuple) -> None:
        """A top-level module's forward starts."""

    def after_forward(self) -> None:
        """That forward ended (always called, also when it raised)."""

    def before_backward(self, tensors: Any) -> None:
        """``torch.autograd.backward(tensors, ...)`` is about to run."""

    def before_optimizer_step(self, optimizer: Any) -> None:
        """``optimizer.step()`` is about to run."""

    def at_boundary(self) -> None:
        """An optimizer step ended."""


class Plugins(ProbePlugin):
    """Several plug-ins behind one: the probe's hooks hold one object either way."""

    def __init__(self, plugins: list[ProbePlugin]) -> None:
        super().__init__()
        self.plugins = plugins

    def install(self, context: PluginContext) -> None:
        for p in self.plugins:
            p.install(context)

    def finish(self) -> None:
        for p in self.plugins:
            p.finish()

    def uninstall(self) -> None:
        for p in reversed(self.plugins):
            p.uninstall()

    def set_to_none(self, value: bool) -> bool:
        for p in self.plugins:
            value = p.set_to_none(value)
        return value

    def copy_kwargs(self, tensor: Any, kwargs: dict) -> dict:
        for p in self.plugins:
            kwargs = p.copy_kwargs(tensor, kwargs)
        return kwargs

    def before_forward(self, module: Any, args: tuple) -> None:
        for p in self.plugins:
            p.before_forward(module, args)

    def after_forward(self) -> None:
        for p in reversed(self.plugins):
            p.after_forward()

    def before_backward(self, tensors: Any) -> None:
        for p in self.plugins:
            p.before_backward(tensors)

    def before_optimizer_step(self, optimizer: Any) -> None:
        for p in self.plugins:
            p.before_optimizer_step(optimizer)

    def at_boundary(self) -> None:
        for p in self.plugins:
            p.at_boundary()


def load_plugins(specs: tuple[PluginSpec, ...]) -> Optional[ProbePlugin]:
    """Build the named plug-ins; None when there are none. Raises ImportError for a bad name."""
    built: list[ProbePlugin] = []
    for spec in specs:
        module_name, _, attr = spec.factory.partition(":")
        factory = getattr(importlib.import_module(module_name), attr)
        built.append(factory(dict(spec.options)))
    if not built:
        return None
    return built[0] if len(built) == 1 else Plugins(built)
