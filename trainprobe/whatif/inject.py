"""The child side of the what-if: apply fixes to the user's unchanged script at run time.

``install_fixes`` runs in the probe's child before the script starts. It sets
``instrumentation.fixes`` to a :class:`FixApplier`, which the probe's hooks
call at fixed points (see ``trainprobe/probe/instrument.py``):

* ``set_to_none(value)`` from ``zero_grad(set_to_none=False)``;
* ``copy_kwargs(tensor, kwargs)`` before a host-to-device copy (CUDA only);
* ``before_forward(module, args)`` / ``after_forward()`` around each top-level
  forward: autocast, channels_last, ``torch.compile`` of the model;
* ``before_optimizer_step(optimizer)``: fused (or foreach) optimizer kernels;
* ``at_boundary()`` after each optimizer step: global flags, re-applied every
  step because scripts set them late.

DataLoader fixes are applied when each loader is built, because its
``__setattr__`` refuses some changes after ``__init__`` and the worker
settings are read when an iterator is made. Anomaly detection is kept off by
wrapping ``torch.set_anomaly_enabled``, which ``detect_anomaly`` and
``set_detect_anomaly`` call.

Every trial (the baseline too) records the loss: the scalar handed to
``torch.autograd.backward`` is kept detached on its device and converted to a
float only when the run ends, so recording costs no sync per step. It is
written as one ``loss`` event to the child's event stream.

The CUDA-only paths (pinned memory with non_blocking copies, cudnn.benchmark,
TF32, fused optimizer kernels and bf16 autocast on a GPU) follow torch's
documented APIs but have not yet been exercised on a GPU by the tests.

fp16 autocast is not injected: without loss scaling its gradients underflow,
and a scaler cannot skip an optimizer step from a hook. See ``NOT_INJECTED``.
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any, Optional

import torch

from .fixes import INJECTABLE, NOT_INJECTED, RECORD_LOSS

__all__ = ["INJECTABLE", "NOT_INJECTED", "RECORD_LOSS", "FixApplier", "install_fixes"]

_MAX_LOSSES = 5000  # losses kept; a long window keeps its first ones


def install_fixes(instrumentation: Any, fixes: dict) -> None:
    """Apply ``fixes`` (fix id -> value) in this process and hand the hooks their applier."""
    applier = FixApplier(instrumentation, dict(fixes))
    applier.install()
    instrumentation.fixes = applier


class FixApplier:
    """What the probe's hooks call to apply the fixes; one per child process."""

    def __init__(self, instrumentation: Any, fixes: dict) -> None:
        self.instr = instrumentation
        self.fixes = {k: v for k, v in fixes.items() if k in INJECTABLE and v is not None and v is not False}
        self.record_loss = bool(fixes.get(RECORD_LOSS))
        self.losses: list[tuple[int, str, Any]] = []  # (step, window, detached scalar)
        self.applied: set[str] = set()  # fix ids that acted on something
        self.details: set[str] = set()  # what they did, in words
        self._autocast_stack: list[Optional[Any]] = []
        self._prepared: "weakref.WeakSet[torch.nn.Module]" = weakref.WeakSet()
        self._optimizers: "weakref.WeakSet[Any]" = weakref.WeakSet()
        unknown = sorted(set(fixes) - INJECTABLE - {RECORD_LOSS})
        if unknown:
            self._note(f"what-if: fixes not known to this trainprobe, ignored: {', '.join(unknown)}")

    # -- installing -----------------------------------------------------------------
    def install(self) -> None:
        if self._wants_loader_fix():
            self._patch_dataloader()
        if "anomaly_off" in self.fixes:
            self._patch_anomaly()
        if self.record_loss:
            self._patch_backward()
        self._wrap_finish()
        self.at_boundary()

    def _wants_loader_fix(self) -> bool:
        return bool({"num_workers", "pin_memory", "persistent_workers", "prefetch_factor"} & set(self.fixes))

    def _patch_dataloader(self) -> None:
        from torch.utils.data import DataLoader

        original = DataLoader.__init__
        signature = inspect.signature(original)
        applier = self

        def __init__(loader, *args, **kwargs):
            try:
                bound = signature.bind(loader, *args, **kwargs)
            except TypeError:  # let DataLoader itself report the script's mistake
                return original(loader, *args, **kwargs)
            applier._override_loader_args(bound.arguments)
            return original(*bound.args, **bound.kwargs)

        DataLoader.__init__ = __init__

    def _override_loader_args(self, arguments: dict) -> None:
        fixes = self.fixes
        if "num_workers" in fixes:
            arguments["num_workers"] = int(fixes["num_workers"])  # type: ignore[arg-type]
            self._applied("num_workers", f"num_workers={arguments['num_workers']}")
        workers = int(arguments.get("num_workers", 0) or 0)
        if "pin_memory" in fixes and torch.cuda.is_available():
            arguments["pin_memory"] = True
            self._applied("pin_memory", "pin_memory=True")
        if workers > 0:  # both settings are refused by DataLoader without workers
            if "persistent_workers" in fixes:
                arguments["persistent_workers"] = True
                self._applied("persistent_workers", "persistent_workers=True")
            if "prefetch_factor" in fixes:
                arguments["prefetch_factor"] = int(fixes["prefetch_factor"])  # type: ignore[arg-type]
                self._applied("prefetch_factor", f"prefetch_factor={arguments['prefetch_factor']}")
        else:
            # A script that set them with num_workers=0 gets the fix's value of 0 workers: keep it valid.
            if "num_workers" in fixes:
                arguments.pop("persistent_workers", None)
                arguments.pop("prefetch_factor", None)

    def _patch_anomaly(self) -> None:
        original = torch.set_anomaly_enabled
        applier = self

        def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
            if enabled:
                applier._applied("anomaly_off", "kept anomaly detection off")
            return original(False, check_nan)

        torch.set_anomaly_enabled = set_anomaly_enabled
        self._set_anomaly_off = lambda: original(False)

    def _patch_backward(self) -> None:
        original = torch.autograd.backward
        applier = self
        is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)

        def backward(tensors, *args, **kwargs):
            if not is_compiling() and isinstance(tensors, torch.Tensor) and tensors.numel() == 1:
                applier._keep_loss(tensors)
            return original(tensors, *args, **kwargs)

        torch.autograd.backward = backward

    def _keep_loss(self, loss: torch.Tensor) -> None:
        if len(self.losses) < _MAX_LOSSES:
            clock = getattr(self.instr, "clock", None)
            step = getattr(clock, "steps_emitted", 0)
            window = getattr(clock, "window", "")
            self.losses.append((step, window, loss.detach()))

    def _wrap_finish(self) -> None:
        original = self.instr.finish
        applier = self

        def finish() -> None:
            try:
                original()
            finally:
                applier.emit_results()

        self.instr.finish = finish  # an instance attribute: the probe's own finish() calls find it

    # -- results ------------------------------------------------------------------
    def emit_results(self) -> None:
        """Write the losses and the fixes that took effect to the child's event stream."""
        if self.record_loss:
            values = []
            for step, window, tensor in self.losses:
                try:
                    values.append([step, window, float(tensor.float().item())])
                except Exception:
                    continue
            self.instr.sink.emit("loss", values=values)
            self.losses.clear()
        if self.fixes:
            self.instr.sink.emit("fixes_applied", fixes=sorted(self.applied),
                                 asked=sorted(self.fixes), details=sorted(self.details))

    def _applied(self, fix: str, detail: str) -> None:
        self.applied.add(fix)
        self.details.add(detail)

    def _note(self, text: str) -> None:
        try:
            self.instr.sink.emit("note", text=text)
        except Exception:
            pass

    # -- hooks the probe calls ------------------------------------------------------
    def set_to_none(self, value: bool) -> bool:
        if "set_to_none" in self.fixes:
            self._applied("set_to_none", "zero_grad(set_to_none=True)")
            return True
        return value

    def copy_kwargs(self, tensor: torch.Tensor, kwargs: dict) -> dict:
        if "pin_memory" in self.fixes and "non_blocking" not in kwargs:
            try:
                pinned = tensor.is_pinned()
            except Exception:
                pinned = False
            if pinned:
                self._applied("pin_memory", "non_blocking=True copies from pinned memory")
                return {**kwargs, "non_blocking": True}
        return kwargs

    def before_forward(self, module: torch.nn.Module, args: tuple) -> None:
        self._apply_flags()
        if module not in self._prepared and _has_parameters(module):
            self._prepared.add(module)
            self._prepare_model(module)
        self._autocast_stack.append(self._enter_autocast(module))

    def after_forward(self) -> None:
        if not self._autocast_stack:
            return
        context = self._autocast_stack.pop()
        if context is not None:
            context.__exit__(None, None, None)

    def before_optimizer_step(self, optimizer: Any) -> None:
        if "fused_optimizer" not in self.fixes or optimizer in self._optimizers:
            return
        self._optimizers.add(optimizer)
        detail = _use_fused_kernels(optimizer)
        if detail:
            self._applied("fused_optimizer", detail)
        else:
            self._note(f"what-if: {type(optimizer).__name__} has no fused or foreach kernels to switch to")

    def at_boundary(self) -> None:
        self._apply_flags()

    # -- the fixes themselves -------------------------------------------------------
    def _apply_flags(self) -> None:
        fixes = self.fixes
        if "cudnn_benchmark" in fixes and not torch.backends.cudnn.benchmark:
            torch.backends.cudnn.benchmark = True
            self._applied("cudnn_benchmark", "torch.backends.cudnn.benchmark=True")
        if "tf32" in fixes and (torch.get_float32_matmul_precision() == "highest"
                                or not torch.backends.cudnn.allow_tf32):
            torch.set_float32_matmul_precision("high")
            torch.backends.cudnn.allow_tf32 = True
            self._applied("tf32", "torch.set_float32_matmul_precision('high'), cudnn.allow_tf32=True")
        if "anomaly_off" in fixes and torch.is_anomaly_enabled():
            getattr(self, "_set_anomaly_off", lambda: torch.set_anomaly_enabled(False))()

    def _prepare_model(self, module: torch.nn.Module) -> None:
        if "channels_last" in self.fixes and _has_conv2d(module):
            module.to(memory_format=torch.channels_last)
            module.register_forward_pre_hook(_inputs_to_channels_last)
            self._applied("channels_last", f"{type(module).__name__} and its 4-d inputs in channels_last")
        if "compile" in self.fixes and not _already_compiled(module):
            # Compile forward, not the module: the probe's hooks around the call stay
            # eager, so the step is still timed and autocast still wraps it.
            module.forward = torch.compile(module.forward)
            self._applied("compile", f"torch.compile({type(module).__name__}.forward)")

    def _enter_autocast(self, module: torch.nn.Module) -> Optional[Any]:
        if "amp_bf16" not in self.fixes:
            return None
        device = _module_device(module)
        if device not in ("cuda", "cpu") or torch.is_autocast_enabled(device):
            return None  # the script's own autocast (or an outer forward's) stays in charge
        if device == "cuda" and not torch.cuda.is_bf16_supported():
            return None
        context = torch.autocast(device, dtype=torch.bfloat16)
        context.__enter__()
        self._applied("amp_bf16", f"torch.autocast('{device}', dtype=torch.bfloat16) around the forward")
        if module.training and torch.is_grad_enabled():
            reg = self.instr.reg  # the probe counted autocast before this hook ran: count ours
            reg.autocast_forwards += 1
            reg.autocast_device = device
            reg.autocast_dtype = "bfloat16"
        return context


def _has_parameters(module: torch.nn.Module) -> bool:
    return next(module.parameters(), None) is not None


def _has_conv2d(module: torch.nn.Module) -> bool:
    return any(isinstance(m, torch.nn.Conv2d) for m in module.modules())


def _already_compiled(module: torch.nn.Module) -> bool:
    return type(module).__name__ == "OptimizedModule" or getattr(module, "_compiled_call_impl", None) is not None


def _module_device(module: torch.nn.Module) -> Optional[str]:
    param = next(module.parameters(), None)
    if param is not None:
        return param.device.type
    return "cpu"  # parameter-free modules (a loss) follow the data; autocast on CPU is harmless


def _inputs_to_channels_last(module: torch.nn.Module, args: tuple) -> Optional[tuple]:
    if not any(isinstance(a, torch.Tensor) and a.dim() == 4 for a in args):
        return None
    return tuple(a.contiguous(memory_format=torch.channels_last)
                 if isinstance(a, torch.Tensor) and a.dim() == 4 else a for a in args)


def _fused_devices() -> set[str]:
    try:
        from torch.utils._foreach_utils import _get_fused_kernels_supported_devices

        return set(_get_fused_kernels_supported_devices())
    except Exception:
        return {"cuda"}


def _use_fused_kernels(optimizer: Any) -> Optional[str]:
    """Ask for fused kernels (else foreach) in every param group; before the first step only."""
    defaults = getattr(optimizer, "defaults", {}) or {}
    if defaults.get("fused") or getattr(optimizer, "state", None):
        return None  # already fused, or state made by non-fused steps (its 'step' may live on the CPU)
    params = [p for g in optimizer.param_groups for p in g.get("params", [])]
    devices = {p.device.type for p in params}
    floating = all(p.is_floating_point() for p in params)
    differentiable = any(g.get("differentiable") for g in optimizer.param_groups)
    if "fused" in defaults and floating and not differentiable and devices and devices <= _fused_devices():
        for group in (*optimizer.param_groups, defaults):
            group["fused"] = True
            group["foreach"] = False
        optimizer._step_supports_amp_scaling = True
        return f"{type(optimizer).__name__}(fused=True)"
    if "foreach" in defaults and not defaults.get("foreach") and not differentiable:
        for group in (*optimizer.param_groups, defaults):
            group["foreach"] = True
        return f"{type(optimizer).__name__}(foreach=True)"
    return None
