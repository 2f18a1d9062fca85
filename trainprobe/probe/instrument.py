"""Zero-code instrumentation of a training loop, installed in the child before the script runs.

Hooks, all read-only unless a what-if fix asks otherwise:

* DataLoader ``__iter__``/``__next__``: epochs, the loop's wait for each batch,
  the batch size; ``worker_init_fn`` is wrapped to time fetches in workers. Within
  the wait, the loop thread's CPU time (``time.thread_time``) and the time it spends
  receiving a batch from a worker (``ForkingPickler.loads``: unpickling the batch and
  mapping its tensors' shared memory) tell a batch being made or handed over from a
  loop that waits on something else.
* module forward hooks: the top-level forward (and whether it ran in eval
  mode or without grad: validation). Global hooks during warm-up find the
  top-level modules; then per-module hooks replace them, because global hooks
  cost ~2.5 µs on every submodule call.
* ``torch.autograd.backward``: the backward pass (a step boundary when there is
  no optimizer).
* global optimizer step pre/post hooks: the optimizer phase and the step
  boundary; ``zero_grad``, LR schedulers, GradScaler and ``torch.compile`` are
  counted.
* ``Tensor.to``/``Tensor.cuda`` (only when CUDA is available): host-to-device
  copies.
* the constructors of DataLoader, optimizers, LR schedulers and modules, and
  argparse's ``parse_known_args``: where the script built each object and which
  command-line options it has; at the first optimizer step, the frames on the
  stack name the framework that drives the loop (probe/sites.py).

Every hook returns at once while ``torch.compile`` traces, or Dynamo would
trace our Python state and recompile every step. Asking
(``torch.compiler.is_compiling``) costs two Python calls, so the hooks ask
only once the script has called ``torch.compile``, ``Module.compile`` or
``torch.export.export``, the public ways into Dynamo. The same holds while
``torch.jit.trace`` runs the model (TensorBoard's ``add_graph`` does): it runs
it twice and compares the graphs, and our hooks' work in the first run made
them differ, so the script failed with TracingCheckError where python ran it
(weiaicunzai's CIFAR-100 SqueezeNet, test set 8).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
import time
import weakref
from collections import OrderedDict
from typing import Any, Optional

import torch
from torch.nn.parameter import is_lazy
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from torch.utils.data import DataLoader
from torch.utils.data.dataloader import _BaseDataLoaderIter

from ..machine import get_torch_facts
from ..record import PHASE_STEADY
from .batchvars import batch_variables
from .frames import is_torch, is_trainprobe
from .clock import PhaseRanges, StepClock
from .config import ChildConfig
from .configfiles import ConfigWatch
from .events import EventSink
from .plugins import PluginContext, ProbePlugin
from .census import Census, census_blocked
from .memory import DeviceMemoryReader, memory_limit
from .peak import measure_peak
from .profsummary import summarize_profile
from .samples import batch_samples, collation
from .settings import Registry, read_settings, unwrap_model
from .sites import (UserCode, batch_fetcher, called_chain, called_site, calling_library, detect_framework,
                    loop_function, site)
from .windows import ProfilerWindow, PythonWindow
from .workers import WorkerInit, flush_stats

__all__ = ["Instrumentation"]

_dynamo_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)
_jit_tracing = getattr(torch._C, "_is_tracing", lambda: False)


def _is_compiling() -> bool:
    """Dynamo traces (torch.compile, export), or torch.jit.trace runs the model (module docs)."""
    return _dynamo_compiling() or _jit_tracing()

# One call with no argument (~140 ns) instead of a by-name check per device (~320 ns each) on
# every forward; torch builds without it check each device.
_any_autocast = getattr(torch._C, "_is_any_autocast_enabled", lambda: True)


def _caller() -> Optional[str]:
    frame = sys._getframe(2)
    # By the packages' real folders, not a word in the path: a script may live in a folder named
    # trainprobe or torch (probe/frames.py).
    while frame is not None and (is_torch(frame.f_code.co_filename) or is_trainprobe(frame.f_code.co_filename)):
        frame = frame.f_back
    if frame is None:
        return None
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _learning_rate(optimizer: Any) -> Optional[float]:
    """The learning rate this optimizer step uses (its first param group), without a device sync."""
    try:
        lr = optimizer.param_groups[0]["lr"]
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    if type(lr) is float or type(lr) is int:
        return float(lr)
    if isinstance(lr, torch.Tensor) and lr.device.type == "cpu" and lr.numel() == 1:
        return float(lr)  # a CPU tensor (capturable optimizers keep it on the GPU: left unread)
    return None


def _with_timed_closure(clock: StepClock, args: tuple, kwargs: dict) -> Optional[tuple]:
    """optimizer.step(closure): time the closure apart, so its own code is the loop's (other), not the
    optimizer's. None when there is no closure (the hook then changes nothing)."""
    if "closure" in kwargs:
        closure = kwargs["closure"]
        if not callable(closure):
            return None
        return args, {**kwargs, "closure": _timed(clock, closure)}
    if args and callable(args[0]):
        return (_timed(clock, args[0]), *args[1:]), kwargs
    return None


def _timed(clock: StepClock, closure: Any) -> Any:
    def timed_closure(*a: Any, **k: Any) -> Any:
        clock.enter("closure")
        try:
            return closure(*a, **k)
        finally:
            clock.exit("closure")
    return timed_closure


def _marks_tracing(instr: "Instrumentation", original: Any) -> Any:
    """``original`` (a torch.jit tracer), which first tells the hooks to ask whether a trace runs."""
    def trace(*args, **kwargs):
        instr.tracing_possible = True
        return original(*args, **kwargs)

    return trace


def _targets_cuda(args: tuple, kwargs: dict) -> bool:
    for value in (*args, kwargs.get("device")):
        if isinstance(value, torch.device):
            return value.type == "cuda"
        if isinstance(value, str):
            return value.startswith("cuda")
        if isinstance(value, int) and not isinstance(value, bool):
            return True
        if isinstance(value, torch.Tensor):
            return value.device.type == "cuda"
    return False


class Instrumentation:
    def __init__(self, config: ChildConfig, sink: EventSink) -> None:
        self.config = config
        self.sink = sink
        self.reg = Registry(UserCode(_user_dirs(config)))
        self.clock = StepClock(
            config.plan, config.t0, sink.emit, on_window=self._on_window, on_stop_swallowed=self._stop_swallowed,
            emit_step=self._emit_step, drain=self._drain_device,
        )
        self.cuda_available = bool(torch.cuda.is_available())
        # Autocast on a device torch cannot use is impossible: one check fewer per forward.
        self._autocast_devices = ("cuda", "cpu") if self.cuda_available else ("cpu",)
        self.profiler_window: Optional[ProfilerWindow] = None
        self.python_window = PythonWindow(config.out_dir)
        self.compiled = False  # torch.compile was called (a setting of the run)
        # Dynamo may trace our hooks (torch.compile or torch.export was called): only then is
        # ``_is_compiling()`` (two Python calls, 7 times a step) worth asking.
        self.tracing_possible = False
        self._depth = 0
        self._top_phase: list[str] = []
        self._handles: list[Any] = []
        self._module_handles: list[Any] = []  # the module ranges' hooks, only while the profiler runs
        self._hooked: "weakref.WeakSet[Any]" = weakref.WeakSet()  # modules with our hooks on them
        self._hook_ids: set[int] = set()
        # Instance attributes a plug-in set on a module (a what-if's wrapped forward): id(module) -> {name: value}
        self._hidden_attributes: dict[int, dict[str, Any]] = {}
        self._getstate_patched: set[type] = set()  # classes whose __getstate__ leaves our hooks out
        self._originals: list[tuple[Any, str, Any]] = []
        self._finished = False
        self.plugin: Optional[ProbePlugin] = None  # see probe/plugins.py; the what-if plugs in here
        self._receiving: Optional[int] = None  # the thread waiting in a DataLoader __next__ with workers
        self._received = 0.0  # its seconds in ForkingPickler.loads during that wait
        self.census: Optional[Census] = None  # the counting step, while it runs (probe/census.py)
        self._settling: Optional[Census] = None  # the count, ended, waiting one step to tell growth from a held batch
        self._census_done = False
        self._largest_input = 0  # elements of the largest first input a training forward had (streamed as it grows)
        self._device_memory: Optional[DeviceMemoryReader] = DeviceMemoryReader() if self.cuda_available else None

    # -- installing ---------------------------------------------------------------
    def _patch(self, owner: Any, name: str, replacement: Any) -> None:
        self._originals.append((owner, name, getattr(owner, name)))
        setattr(owner, name, replacement)

    def plug_in(self, plugin: ProbePlugin) -> None:
        """Attach a plug-in (before ``install``); it acts at the hooks' points from then on."""
        self.plugin = plugin
        plugin.install(PluginContext(emit=self.sink.emit, registry=self.reg,
                                     position=lambda: (self.clock.steps_emitted, self.clock.window),
                                     phase=lambda: self.clock.current_phase, t0=self.config.t0,
                                     keep_out_of_pickles=self._keep_out_of_pickles))

    def _keep_out_of_pickles(self, module: Any, handle: Any = None, attribute: Optional[str] = None) -> None:
        """A plug-in's hook on ``module``, or its instance attribute ``attribute``, left out of the
        module's pickled state as the probe's own hooks are."""
        if handle is not None:
            self._hook_ids.add(handle.id)
        if attribute is not None:
            self._hidden_attributes.setdefault(id(module), {})[attribute] = module.__dict__.get(attribute)
        self._guard_pickling(module)

    def install(self) -> None:
        self.sink.emit("torch_env", **_torch_env())  # now: once the script ran out of memory, reading may abort
        self.reg.config_watch = ConfigWatch(exclude=(self.config.out_dir,))
        self.reg.config_watch.start()
        self._install_dataloader()
        self._handles.append(register_module_forward_pre_hook(self._forward_pre))
        self._handles.append(register_module_forward_hook(self._forward_post, always_call=True))
        self._install_backward()
        self._handles.append(register_optimizer_step_pre_hook(self._optimizer_pre))
        self._handles.append(register_optimizer_step_post_hook(self._optimizer_post))
        self._install_counters()
        self._install_debug_timing()
        self._install_sites()
        self._install_attention_weights()
        if self.cuda_available:
            self._install_copies()

    def uninstall(self) -> None:
        """Take every hook and patch off again (a benchmark toggles the probe within one process)."""
        for handle in self._handles + self._module_handles:
            handle.remove()
        self._handles.clear()
        self._module_handles.clear()
        for owner, name, original in reversed(self._originals):
            setattr(owner, name, original)
        self._originals.clear()
        self._getstate_patched.clear()
        self._release_loaders()
        if self.reg.config_watch is not None:
            self.reg.config_watch.stop()

    def _release_loaders(self) -> None:
        """The script's DataLoaders as they were: their own worker_init_fn back, and persistent workers
        started under the probe (which time their fetches) shut down; the next epoch starts fresh ones."""
        for entry in self.reg.loaders.values():
            loader = entry.ref()
            wrapper = getattr(loader, "worker_init_fn", None)
            if not isinstance(wrapper, WorkerInit):
                continue
            loader.worker_init_fn = wrapper.user_fn
            iterator = getattr(loader, "_iterator", None)
            if iterator is not None:
                try:
                    iterator._shutdown_workers()  # pylint: disable=protected-access
                except Exception:  # pylint: disable=broad-except  # they end with the loader anyway
                    pass
                loader._iterator = None  # pylint: disable=protected-access

    def _install_dataloader(self) -> None:
        original_iter = DataLoader.__iter__
        original_init = _BaseDataLoaderIter.__init__
        original_next = _BaseDataLoaderIter.__next__
        instr = self

        def begin(loader) -> Any:
            """A new pass over ``loader``: its entry, with its workers' timing set up before they start."""
            entry = instr.reg.loader(loader)
            if entry.created_at is None:
                entry.created_at = _caller()
            if loader.num_workers > 0 and not isinstance(loader.worker_init_fn, WorkerInit):
                loader.worker_init_fn = WorkerInit(
                    loader.worker_init_fn, instr.config.out_dir, instr.config.t0, entry.loader_id
                )
            return entry

        def opened(entry, iterator) -> None:
            """The pass's iterator is made: its batches are timed, and its first begins an epoch."""
            entry.iterations += 1
            iterator._trainprobe_entry = entry
            instr.clock.note_epoch_start()

        opening = threading.local()  # inside DataLoader.__iter__ above, which times the iterator it makes

        def __iter__(loader):
            if instr.tracing_possible and _is_compiling():
                return original_iter(loader)
            entry = begin(loader)
            opening.depth = getattr(opening, "depth", 0) + 1
            try:
                iterator = original_iter(loader)
            finally:
                opening.depth -= 1
            opened(entry, iterator)
            return iterator

        def __init__(iterator, loader, *args, **kwargs):
            # A torch DataLoader's iterator is made by DataLoader.__iter__ above. A library with a
            # DataLoader of its own (fastai's) makes torch's iterators from a stand-in object, and one whose
            # DataLoader subclass keeps an iterator it made with _get_iterator() (ultralytics'
            # InfiniteDataLoader, test set 19) never calls __iter__: timed too, or its every wait for data
            # would count as the loop's own code and its iterations would end at optimizer steps.
            if (isinstance(loader, DataLoader) and getattr(opening, "depth", 0)) or \
                    (instr.tracing_possible and _is_compiling()):
                return original_init(iterator, loader, *args, **kwargs)
            entry = begin(loader)
            original_init(iterator, loader, *args, **kwargs)
            opened(entry, iterator)
            return None

        def __next__(iterator):
            entry = getattr(iterator, "_trainprobe_entry", None)
            if entry is None or (instr.tracing_possible and _is_compiling()):
                return original_next(iterator)
            clock = instr.clock
            inside = bool(instr._top_phase)  # a module's forward (or eval) is running: it fetches this
            auxiliary = clock.on_fetch(entry, inside)  # may end the step: an iteration begins with its batch
            # Fetched before the step's forward (or beginning a step): the batch the backward trains on.
            feeds_step = not inside and not clock.forward_begun
            start = clock.enter("data_wait")
            instr._received = 0.0
            if getattr(iterator, "_num_workers", 0):
                instr._receiving = threading.get_ident()
            cpu = time.thread_time()
            try:
                batch = original_next(iterator)
            finally:
                cpu = time.thread_time() - cpu
                instr._receiving = None
                wait = clock.exit("data_wait") - start
                clock.note_wait(cpu, instr._received)
            entry.batches += 1
            entry.wait_total += wait
            if entry.first_batch_wait is None:
                entry.first_batch_wait = wait
            if not auxiliary:  # an augmentation's noise is not samples the step trains on
                clock.note_batch(batch_samples(batch, *collation(iterator)))
            # The first training batches' padding, where they carry an attention mask (probe/padding.py).
            if feeds_step and not auxiliary and not instr.reg.padding.done and torch.is_grad_enabled():
                instr.reg.padding.note(batch)
            # A batch fetched with autograd off (a validation loop under no_grad or inference_mode) feeds
            # no backward: the next backward's batch came from elsewhere (on an H200 a sample trained from
            # batches indexed on the device, and its validation DataLoader was taken for the training one).
            # A batch fetched after a forward began (an augmentation's own loader, read inside the step)
            # does not feed the backward: the loader read before the forward stays the one it trains from.
            if feeds_step:
                instr.reg.last_loader = entry if torch.is_grad_enabled() else None
                if instr.reg.batches_fetched_by is None:
                    instr.reg.batches_fetched_by = batch_fetcher(sys._getframe(1), instr.reg.sites.is_user)
            return batch

        self._patch(DataLoader, "__iter__", __iter__)
        self._patch(_BaseDataLoaderIter, "__init__", __init__)
        self._patch(_BaseDataLoaderIter, "__next__", __next__)
        self._install_receive_timing()

    def _install_receive_timing(self) -> None:
        """Time the loop thread's unpickling of batches from workers (the result queue's
        ``get`` calls ``ForkingPickler.loads``; receiving a tensor's shared-memory handle from its
        worker happens inside it). Other threads (pin_memory's) and other queues pass untimed."""
        from multiprocessing.reduction import ForkingPickler

        original = ForkingPickler.loads
        instr = self

        def loads(*args, **kwargs):
            if instr._receiving != threading.get_ident():
                return original(*args, **kwargs)
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                instr._received += time.perf_counter() - start

        self._patch(ForkingPickler, "loads", staticmethod(loads))

    def _install_backward(self) -> None:
        original = torch.autograd.backward
        instr = self

        def backward(*args, **kwargs):
            if instr.tracing_possible and _is_compiling():
                return original(*args, **kwargs)
            clock = instr.clock
            if instr.reg.loop_at is None and instr.reg.framework is None:
                instr._read_loop(sys._getframe(1))
            if instr.plugin is not None:
                instr.plugin.before_backward(args[0] if args else kwargs.get("tensors"))
            clock.enter("backward")
            try:
                result = original(*args, **kwargs)
            finally:
                clock.exit("backward")
            instr.reg.backward_calls += 1
            if instr.reg.last_loader is not None:
                instr.reg.last_loader.used_in_training = True
            clock.on_backward()
            return result

        self._patch(torch.autograd, "backward", backward)

    def _install_counters(self) -> None:
        instr = self
        reg = self.reg

        def counted_zero_grad(original):
            def zero_grad(obj, set_to_none: bool = True):
                if instr.tracing_possible and _is_compiling():
                    return original(obj, set_to_none)
                reg.zero_grad_calls += 1
                if set_to_none is False:
                    reg.zero_grad_set_to_none_false += 1
                    if instr.plugin is not None:
                        set_to_none = instr.plugin.set_to_none(set_to_none)
                instr.clock.enter("zero_grad")
                try:
                    return original(obj, set_to_none)
                finally:
                    instr.clock.exit("zero_grad")

            return zero_grad

        self._patch(torch.optim.Optimizer, "zero_grad", counted_zero_grad(torch.optim.Optimizer.zero_grad))
        self._patch(torch.nn.Module, "zero_grad", counted_zero_grad(torch.nn.Module.zero_grad))

        from torch.optim import lr_scheduler

        for cls in (lr_scheduler.LRScheduler, lr_scheduler.ReduceLROnPlateau):
            original_step = cls.step

            def step(sched, *args, _original=original_step, **kwargs):
                reg.scheduler_step(sched)
                return _original(sched, *args, **kwargs)

            self._patch(cls, "step", step)

        original_scale = torch.amp.GradScaler.scale

        def scale(scaler, outputs):
            reg.grad_scaler_used = True
            return original_scale(scaler, outputs)

        self._patch(torch.amp.GradScaler, "scale", scale)

        original_compile = torch.compile

        def compile(*args, **kwargs):
            instr.compiled = instr.tracing_possible = True
            return original_compile(*args, **kwargs)

        self._patch(torch, "compile", compile)
        original_module_compile = torch.nn.Module.compile

        def module_compile(module, *args, **kwargs):
            instr.compiled = instr.tracing_possible = True
            return original_module_compile(module, *args, **kwargs)

        self._patch(torch.nn.Module, "compile", module_compile)
        self._install_checkpoint_line()
        for name in ("trace", "trace_module"):  # torch.jit's tracer runs the model under our hooks
            original_trace = getattr(torch.jit, name, None)
            if original_trace is not None:
                self._patch(torch.jit, name, _marks_tracing(instr, original_trace))
        export_module = getattr(torch, "export", None)
        original_export = getattr(export_module, "export", None)
        if original_export is not None:

            def export(*args, **kwargs):
                instr.tracing_possible = True  # strict export traces with Dynamo
                return original_export(*args, **kwargs)

            self._patch(export_module, "export", export)

    def _install_checkpoint_line(self) -> None:
        """Note the script's own line of its first torch.utils.checkpoint.checkpoint(...) call: the line a
        checkpointing fix changes (fast-DiT checkpoints each block in DiT.forward). Recomputed forwards run inside
        backward, where that line is no longer on the stack."""
        from torch.utils import checkpoint as checkpointing

        instr = self
        original = checkpointing.checkpoint

        @functools.wraps(original)
        def checkpoint(function, *args, **kwargs):
            if instr.reg.checkpoint_called_at is None and not (instr.tracing_possible and _is_compiling()):
                caller = sys._getframe(1)
                if instr.reg.sites.is_user(caller.f_code.co_filename):
                    instr.reg.checkpoint_called_at = site(caller)
            return original(function, *args, **kwargs)

        self._patch(checkpointing, "checkpoint", checkpoint)

    def _install_sites(self) -> None:
        """Note where the script builds its loaders, optimizers, schedulers and modules (once per object),
        and the command-line options it parses."""
        from torch.optim import lr_scheduler

        sites = self.reg.sites
        for cls in (DataLoader, torch.optim.Optimizer, lr_scheduler.LRScheduler, lr_scheduler.ReduceLROnPlateau,
                    torch.nn.Module):
            if "__init__" in vars(cls):
                self._patch(cls, "__init__", sites.wrap_init(cls, link=cls is DataLoader,
                                                             optimizer=cls is torch.optim.Optimizer))
        instr = self

        def noting_moves(original):
            @functools.wraps(original)  # help(model.to) and inspect.signature stay torch's
            def move(module, *args, **kwargs):
                moved = original(module, *args, **kwargs)
                if not (instr.tracing_possible and _is_compiling()):
                    sites.note_move(module, sys._getframe(1))
                return moved

            return move

        for name in ("to", "cuda"):
            self._patch(torch.nn.Module, name, noting_moves(getattr(torch.nn.Module, name)))
        self._patch(argparse._ActionsContainer, "add_argument",  # pylint: disable=protected-access
                    self.reg.flags.wrap_add(argparse._ActionsContainer.add_argument))  # pylint: disable=protected-access
        self._patch(argparse.ArgumentParser, "parse_known_args",
                    self.reg.flags.wrap(argparse.ArgumentParser.parse_known_args))
        # jsonargparse's parsers (LightningCLI, litgpt's CLI) override parse_known_args and parse through
        # argparse's inner _parse_known_args, which every parser reaches.
        inner = getattr(argparse.ArgumentParser, "_parse_known_args", None)
        if inner is not None:
            self._patch(argparse.ArgumentParser, "_parse_known_args", self.reg.flags.wrap(inner))

    def _read_loop(self, frame: Any) -> None:
        """The framework that drives the loop and the loop's line, from the frames at its first update."""
        reg = self.reg
        try:
            built = [e.built[1] for e in reg.loaders.values()] + [e.built[1] for e in reg.models.values()]
            reg.framework, reg.loop_at = detect_framework(frame, reg.sites.is_user, tuple(built),
                                                          fetched_by=reg.batches_fetched_by)
            reg.loop_function = loop_function(frame, reg.sites.is_user)
            own_loaders = tuple(e.built[0] for e in reg.loaders.values() if e.built[0] and e.built[1] is None)
            reg.batch_variables = batch_variables(frame, reg.sites.is_user, own_loaders)
        except Exception as exc:  # pylint: disable=broad-except  # a framework we cannot read: advice stays plain
            self.sink.emit("note", text=f"could not tell which framework runs the loop: {exc}")
            reg.framework = None

    def _install_attention_weights(self) -> None:
        """Count and time the training calls of nn.MultiheadAttention that make their attention weights
        (need_weights=True, its default): those run the unfused path, the whole (length x length) weights made,
        averaged over heads and returned, where need_weights=False runs scaled_dot_product_attention's fused
        kernel. A library's own layers pass need_weights=False (TransformerEncoderLayer); a script that calls
        the module itself often leaves the default (test set 17's DDPM: 1.9x from passing False)."""
        instr = self
        original = torch.nn.MultiheadAttention.forward

        def forward(module, *args, **kwargs):
            need = kwargs.get("need_weights", args[4] if len(args) > 4 else True)
            if not (need and module.training and torch.is_grad_enabled()) or \
                    (instr.tracing_possible and _is_compiling()):
                return original(module, *args, **kwargs)
            reg = instr.reg
            if reg.attention_weights_at is None:
                reg.attention_weights_at = called_site(sys._getframe(1), reg.sites.is_user)
            start = time.perf_counter()
            try:
                return original(module, *args, **kwargs)
            finally:
                reg.attention_weights_calls += 1
                reg.attention_weights_seconds += time.perf_counter() - start

        forward.__wrapped__ = original
        self._patch(torch.nn.MultiheadAttention, "forward", forward)

    def _install_debug_timing(self) -> None:
        """Time anomaly mode's stack capture as the step's ``debug`` part.

        Anomaly mode records a Python stack for every autograd node through
        ``torch.fx.traceback.format_stack``, which it looks up by name on each
        call, so a module attribute catches it. FX tracing calls it too; only
        calls made while anomaly mode is on count.
        """
        try:
            from torch.fx import traceback as fx_traceback
        except Exception:  # pylint: disable=broad-except  # an unusual torch build: no debug timing
            return
        original = getattr(fx_traceback, "format_stack", None)
        if original is None:
            return
        clock, reg = self.clock, self.reg
        anomaly_on = torch.is_anomaly_enabled

        def format_stack(*args, **kwargs):
            if not anomaly_on():
                return original(*args, **kwargs)
            reg.anomaly_seen = True
            clock.enter("debug")
            try:
                return original(*args, **kwargs)
            finally:
                clock.exit("debug")

        self._patch(fx_traceback, "format_stack", format_stack)

    def _install_copies(self) -> None:
        instr = self
        original_to = torch.Tensor.to
        original_cuda = torch.Tensor.cuda

        def timed(original, is_cuda_target):
            def copy(tensor, *args, **kwargs):
                if (tensor.device.type != "cpu" or (instr.tracing_possible and _is_compiling())
                        or not is_cuda_target(args, kwargs)):
                    return original(tensor, *args, **kwargs)
                if instr.plugin is not None:
                    kwargs = instr.plugin.copy_kwargs(tensor, kwargs)
                instr.clock.enter("h2d")
                try:
                    return original(tensor, *args, **kwargs)
                finally:
                    instr.clock.exit("h2d")
                    instr.reg.devices_used.add("cuda")

            return copy

        self._patch(torch.Tensor, "to", timed(original_to, _targets_cuda))
        self._patch(torch.Tensor, "cuda", timed(original_cuda, lambda a, k: True))

    # -- hooks --------------------------------------------------------------------
    # The forward hooks run on every top-level forward: one frame each, no helpers.
    def _forward_pre(self, module, args):
        if self.tracing_possible and _is_compiling():
            return None
        self._depth += 1
        if self._depth != 1:
            return None
        stack = self.clock._stack
        if stack and stack[0] in ("data_wait", "backward"):
            # A module called while the DataLoader makes a batch in this process (num_workers=0):
            # torchvision's transforms (Resize, Normalize...) are modules. That is data loading.
            # A module called inside backward: activation checkpointing recomputing a block's forward. That
            # is the backward's work, not a new forward (nor a new model); it is counted, as checkpointing's sign.
            if stack[0] == "backward":
                self.reg.recomputed_forwards += 1
            return None
        training = module.training
        grad = torch.is_grad_enabled()
        phase = "forward" if training and grad else "eval"
        self.clock.on_forward(phase == "forward")
        self.clock.enter(phase)
        self._top_phase.append(phase)
        reg = self.reg
        first = args[0] if args else None
        entry = reg.model_call(module, training, grad, first)
        if phase == "forward" and entry.called_at is None:
            entry.called_at = called_site(sys._getframe(1), reg.sites.is_user)
            entry.called_via = called_chain(sys._getframe(1), reg.sites.is_user)
        elif grad and phase == "eval":
            # Who runs the model in eval mode with autograd on: the script's validation, which the user can
            # wrap in no_grad, or a library's own code (an RL library's targets), which the user cannot.
            library = calling_library(sys._getframe(1), reg.sites.is_user)
            if library is not None:
                entry.eval_calls_with_grad_by_library += 1
                entry.eval_with_grad_by = entry.eval_with_grad_by or library
            elif not entry.train_calls:
                entry.eval_calls_with_grad_before_training += 1  # a summary or FLOP count, if it goes on to train
        if phase == "forward" and isinstance(first, torch.Tensor):
            if first.dim() >= 2:  # a 1-d input is one sample's features (an RL policy acting), not a batch
                self.clock.note_forward_batch(first.shape[0])
            elif first.dim() == 0 and len(args) > 1:
                # A scalar first: the time of an ODE's right-hand side, func(t, y) (torchdiffeq, test set 16),
                # whose batch is the state after it.
                state = args[1]
                if isinstance(state, torch.Tensor) and state.dim() >= 2:
                    self.clock.note_forward_batch(state.shape[0])
            if self.census is not None:
                self.census.note_input(first)
            if first.numel() > self._largest_input:
                self._note_largest_input(first)
        if phase == "forward" and _any_autocast():
            for device in self._autocast_devices:
                if torch.is_autocast_enabled(device):
                    reg.autocast_forwards += 1
                    reg.autocast_device = device
                    reg.autocast_dtype = str(torch.get_autocast_dtype(device)).replace("torch.", "")
                    break
        if self.plugin is not None:
            self.plugin.before_forward(module, args)
        return None

    def _forward_post(self, module, args, output):
        if self.tracing_possible and _is_compiling():
            return None
        depth = self._depth
        if depth == 1 and self._top_phase:
            phase = self._top_phase.pop()
            if self.plugin is not None:
                self.plugin.after_forward()
            self.clock.exit(phase)
        self._depth = depth - 1 if depth > 0 else 0
        return None

    def _switch_to_module_hooks(self) -> None:
        """Leave the global forward hooks for hooks on the top-level modules found so far."""
        modules = [entry.ref() for entry in self.reg.models.values()]
        modules = [m for m in modules if m is not None]
        if not modules or self._depth != 0:
            return
        for handle in self._handles[:2]:
            handle.remove()
        self._handles = self._handles[2:]
        for module in modules:
            for handle in (module.register_forward_pre_hook(self._forward_pre),
                           module.register_forward_hook(self._forward_post, always_call=True)):
                self._handles.append(handle)
                self._hook_ids.add(handle.id)
            self._hooked.add(module)
        self._keep_hooks_out_of_pickles()

    def _keep_hooks_out_of_pickles(self) -> None:
        """The script's torch.save(model) and copy.deepcopy(model) see the model as python would.

        The hooks on the top-level modules (and, while the profiler runs, on their children) are
        bound methods of this object, which holds open files, or closures: pickled with the model,
        they would fail the script's own checkpoint (or put trainprobe into it). The ``__getstate__``
        that pickles each hooked module leaves them out while the probe runs: Module's, and a
        subclass's own where it has one (torchmetrics' Metric builds its state without Module's, and
        pytorch-forecasting keeps its loss, a Metric called at the top level, in Lightning's
        checkpoint). Called whenever modules are hooked; each class is patched once."""
        for module in list(self._hooked):
            self._guard_pickling(module)

    def _guard_pickling(self, module: Any) -> None:
        owner = next(c for c in type(module).__mro__ if "__getstate__" in c.__dict__)
        if owner in self._getstate_patched or owner is object:
            return
        self._getstate_patched.add(owner)
        self._patch(owner, "__getstate__", _without_our_hooks(owner.__dict__["__getstate__"], self._hook_ids,
                                                              self._hidden_attributes))

    def _optimizer_pre(self, optimizer, args, kwargs):
        if self.tracing_possible and _is_compiling():
            return None
        if self.plugin is not None:
            self.plugin.before_optimizer_step(optimizer)
        if self.census is not None:
            self.census.before_optimizer_step(optimizer)
        if self.reg.loop_at is None and self.reg.framework is None:
            self._read_loop(sys._getframe(1))
        self.clock.note_lr(_learning_rate(optimizer))
        self.clock.enter("optimizer")
        return _with_timed_closure(self.clock, args, kwargs)

    def _optimizer_post(self, optimizer, args, kwargs):
        if self.tracing_possible and _is_compiling():
            return None
        self.clock.exit("optimizer")
        if self.census is not None:
            self.census.after_optimizer_step(optimizer)
        self.reg.optimizer_step(optimizer)
        self.reg.note_gradients()
        if self.plugin is not None:
            self.plugin.at_boundary()
        self.clock.on_optimizer_step(optimizer)
        return None

    # -- windows ------------------------------------------------------------------
    def _on_window(self, event: str) -> None:
        step = self.clock.steps_emitted
        if event == "steady_start":
            self._emit_settings()  # after warm-up: flags set late in the script are in place
            self._switch_to_module_hooks()
        elif event == "census_start":
            self._start_census(step)
        elif event == "census_step" and self.census is not None:
            if self.census.boundary(self.clock.last_samples, self.clock.last_duration):
                self._stop_census(settle_later=True)
        elif event == "census_skipped":
            self._emit_census(None, "the steps were too slow to count one beside the measured windows within "
                                    "--max-seconds")
        elif event == "profiler_start":
            self.profiler_window = ProfilerWindow(with_cuda=self._uses_cuda())
            self.profiler_window.start(step)
            if self.profiler_window.profile is not None:
                self.clock.ranges = PhaseRanges()
                self._mark_modules(self.clock.ranges)
        elif event == "profiler_stop" and self.profiler_window is not None:
            self.clock.defer(lambda window=self.profiler_window: self._stop_profiler(window, step))
        elif event == "cprofile_start":
            self.clock.defer(lambda: self._start_python_window(step))
        elif event == "cprofile_stop":
            self.python_window.stop(step)

    def _start_python_window(self, step: int) -> None:
        self.python_window.start(step)
        if self.python_window.mixed:
            self.sink.emit("note", text=self.python_window.mixed)

    # -- the counting step (probe/census.py) ------------------------------------------------
    def _start_census(self, step: int) -> None:
        blocked = census_blocked(self.compiled)
        if blocked:
            self._emit_census(None, blocked)
            return
        models = [m for m in (entry.ref() for entry in self.reg.models.values()) if m is not None]
        optimizers = [o for o in (entry[0]() for entry in self.reg.optimizers.values()) if o is not None]
        clock = self.clock
        census = Census(phase=lambda: clock._stack[-1] if clock._stack else None,  # pylint: disable=protected-access
                        steps=self.clock.census_steps)
        try:
            census.start(step, models, optimizers)
        except Exception as exc:  # pylint: disable=broad-except  # measure less, never stop the script
            census.stop()
            self._emit_census(None, f"the counting step could not start ({type(exc).__name__}: {exc})")
            return
        self.census = census
        self._emit_memory_limit()

    def _emit_memory_limit(self) -> None:
        """The memory the run may use, now: a run the kernel ends out of memory never reaches the end
        (where the peak's event says it again)."""
        try:
            self.sink.emit("memory_limit", limit=memory_limit(torch, cuda=self._uses_cuda()))
        except Exception:  # pylint: disable=broad-except
            pass

    def _note_largest_input(self, first: Any) -> None:
        """A training forward's input larger than any before: streamed (the run may die of it)."""
        self._largest_input = int(first.numel())
        self.sink.emit("largest_input", shape="x".join(str(d) for d in first.shape), elements=self._largest_input,
                       step=self.clock.steps_emitted)

    def _stop_census(self, settle_later: bool = False) -> None:
        census, self.census = self.census, None
        if census is None:
            return
        census.stop()
        if settle_later:  # what outlived the count is judged at the end of the next step (Census.settle)
            self._settling = census
            return
        self._emit_census(census, None)

    def _settle_census(self, settle: bool = True) -> None:
        census, self._settling = self._settling, None
        if census is None:
            return
        if settle:
            try:
                census.settle()
            except Exception:  # pylint: disable=broad-except  # the unsettled count still stands
                pass
        self._emit_census(census, None)

    def _emit_census(self, census: Optional[Census], reason: Optional[str]) -> None:
        if self._census_done:
            return
        self._census_done = True
        try:
            result = census.result(reason) if census is not None else Census(lambda: None, 0).result(reason)
        except Exception as exc:  # pylint: disable=broad-except
            result = Census(lambda: None, 0).result(f"the count could not be summarized ({type(exc).__name__}: {exc})")
        self.sink.emit("census", **result)

    def _emit_step(self, values: tuple) -> None:
        """A step's event, and on a GPU the allocator's figures for a steady step (reset for the next)."""
        self.sink.emit_step(values)
        if self._settling is not None:  # the first step after the count has ended
            self._settle_census()
        if self._device_memory is not None and values[12] == PHASE_STEADY and self._uses_cuda():
            reading = self._device_memory.read(values[0])
            if reading is not None:
                self.sink.emit("device_memory", v=reading)

    def _stop_profiler(self, window: ProfilerWindow, step: int) -> None:
        ranges, self.clock.ranges = self.clock.ranges, None
        for handle in self._module_handles:
            handle.remove()
        self._module_handles.clear()
        if ranges is not None:
            ranges.close()
        window.stop(step)

    def _mark_modules(self, ranges: PhaseRanges) -> None:
        """While the profiler runs: a range around each forward of the trained models' direct children
        (named by attribute), for the profile's module split. Not on a compiled run: hooks added to a
        compiled model's modules would make Dynamo recompile, and its fused code has no per-module ops."""
        if self.compiled:
            return
        instr = self
        for entry in self.reg.models.values():
            model = entry.ref()
            if model is None or not entry.train_calls or next(model.parameters(), None) is None:
                continue
            model = unwrap_model(model)[0]  # DataParallel, DDP, Fabric: the children are the wrapped model's
            for name, child in model.named_children():
                def pre(_module, _args, _name=name):
                    if not (instr.tracing_possible and _is_compiling()):
                        ranges.push_module(_name)

                def post(_module, _args, _output, _name=name):
                    if not (instr.tracing_possible and _is_compiling()):
                        ranges.pop_module(_name)

                # The range closes before the phase does: a child the loop calls itself (BYOL's momentum
                # backbone, a model of its own) has the phase hooks too, registered earlier, and a range
                # that outlived its phase would leave the trace's nesting with its ops in no phase.
                for handle in (child.register_forward_pre_hook(pre),
                               child.register_forward_hook(post, always_call=True, prepend=True)):
                    self._module_handles.append(handle)
                    self._hook_ids.add(handle.id)
                self._hooked.add(child)
        self._keep_hooks_out_of_pickles()

    def _drain_device(self) -> None:
        """Wait for the GPU's queued work (clock.py: at the step that closes a window), on a run that
        uses CUDA; never starts a CUDA context."""
        if self._uses_cuda() and torch.cuda.is_initialized():
            torch.cuda.synchronize()

    def _uses_cuda(self) -> bool:
        return self.cuda_available and "cuda" in self.reg.devices_used

    def _stop_swallowed(self) -> None:
        # The script caught our ProbeStop and carried on: keep what was measured and leave.
        self.sink.emit("note", text="the script caught trainprobe's stop request (a bare except?); "
                                    "trainprobe ended the process after saving its measurements")
        self.finish()
        self.sink.emit("outcome", status="stopped", exit_code=0, reason=self.clock.stop_reason or "")
        self.sink.close()
        sys.stdout.flush()
        sys.stderr.flush()
        import os

        os._exit(0)

    def _emit_settings(self) -> None:
        try:
            settings = read_settings(self.reg, self.clock.unit, self.compiled)
            self.sink.emit("settings", settings=settings.to_dict())
        except Exception as exc:
            self.sink.emit("note", text=f"could not read the run's settings: {exc}")

    # -- the end ------------------------------------------------------------------
    def finish(self) -> None:
        """Close open windows, then summarize; called once the script has stopped."""
        if self._finished:
            return
        self._finished = True
        step = self.clock.steps_emitted
        if self._settling is not None:  # the script ended in the step after the count: left unsettled
            self._settle_census(settle=False)
        if self.census is not None:  # the script ended (or was stopped) while a step was counted
            self._stop_census()
        elif self.config.plan.census:
            self._emit_census(None, "the script ended before its counting step (the first steps after warm-up)")
        else:  # a plan fitted to a short script's steps (probe/refit.py) that had none to spare
            self._emit_census(None, "the run was too short to spare a step for counting them (its windows were "
                                    "fitted to its few steps)")
        if self.profiler_window is not None:
            self._stop_profiler(self.profiler_window, step)
        self.python_window.stop(step)
        self._emit_settings()
        self.sink.emit("data_paths", paths=_data_paths(self.reg))
        if self.profiler_window is not None:
            summary = summarize_profile(self.profiler_window, self.profiler_window.with_cuda, self.config.trace_path,
                                        self.config.out_dir or None)
            self.sink.emit("profiler", summary=summary.to_dict())
        elif self.config.plan.profiler:
            reason = "the script ended before the profiler window" if not self.clock.stop_reason else "no profiler window"
            self.sink.emit("profiler", summary={"availability": {"available": False, "reason": reason}})
        self.sink.emit(
            "python_window",
            stats_path=self.python_window.stats_path,
            wall=self.python_window.wall,
            steps=self.python_window.steps,
            error=self.python_window.error,
        )
        flush_stats()
        if self.config.plan.census or self.config.plan.peak:
            self._emit_peak()
        self.sink.emit("clock", first_activity=(self.clock.first_activity - self.config.t0)
                       if self.clock.first_activity is not None else None,
                       steps=self.clock.steps_emitted, mode=self.clock.unit, stop_reason=self.clock.stop_reason,
                       finished_at=time.monotonic() - self.config.t0)
        self._finish_plugin()

    def _emit_peak(self) -> None:
        """The hardware's ceiling, measured now that the script's steps are done (CPU), or read from the
        datasheet table (GPU); and the memory the run may use."""
        try:
            used = self._uses_cuda()
            peak = measure_peak(torch, cuda=used, dtypes=self._dtypes_used(), t0=self.config.t0)
            self.sink.emit("peak", peak=peak.to_dict(), limit=memory_limit(torch, cuda=used))
        except Exception as exc:  # pylint: disable=broad-except  # the rest of the record still stands
            self.sink.emit("note", text=f"the hardware's peak could not be measured ({type(exc).__name__}: {exc})")

    def _dtypes_used(self) -> tuple[str, ...]:
        """The dtypes to measure the CPU's peak in: the run's (fp32, and bf16/fp16 under autocast or in the
        weights), and bf16 always: whether this CPU multiplies bf16 faster is what the bf16 advice needs."""
        wanted = {"fp32", "bf16"}
        names = {"bfloat16": "bf16", "float16": "fp16"}
        if self.reg.autocast_dtype in names:
            wanted.add(names[self.reg.autocast_dtype])
        for entry in self.reg.models.values():
            model = entry.ref()
            if model is None:
                continue
            for p in model.parameters():
                if is_lazy(p):
                    continue
                name = str(p.dtype).replace("torch.", "")
                if name in names:
                    wanted.add(names[name])
                break
        return tuple(sorted(wanted))

    def _finish_plugin(self) -> None:
        plugin, self.plugin = self.plugin, None
        if plugin is None:
            return
        try:
            plugin.finish()
        finally:
            plugin.uninstall()


def _user_dirs(config: ChildConfig) -> tuple[str, ...]:
    """The script's folder and the working folder: the user's code (as the parent's hotspots read it)."""
    argv = config.argv
    script = argv[0] if argv and argv[0] != "-m" else None
    return tuple(d for d in (os.path.dirname(os.path.abspath(script)) if script else None, os.getcwd()) if d)


def _torch_env() -> dict[str, Any]:
    """This process's TorchFacts, read before the script runs (the same collector as ``check``'s).

    Not the devices' properties: reading them initializes CUDA before the script does.
    """
    try:
        return get_torch_facts(torch, devices=False).to_dict()
    except Exception as exc:  # the getters are guarded; this is the last resort
        return {"availability": {"available": False, "reason": f"torch facts not read: {exc}"}}


def _data_paths(reg: Registry) -> list[str]:
    """Where the data lives, from the datasets' ``.root`` (torchvision datasets have one)."""
    paths = []
    for entry in reg.loaders.values():
        loader = entry.ref()
        root = getattr(getattr(loader, "dataset", None), "root", None) if loader is not None else None
        if isinstance(root, str):
            paths.append(root)
    return paths


_HOOK_KEYS = ("_forward_pre_hooks", "_forward_hooks", "_forward_hooks_always_called")


def _without_our_hooks(original: Any, ids: set, attributes: dict) -> Any:
    """``original`` (a class's own __getstate__), with the probe's hooks taken out of the state it
    returns, and the instance attributes a plug-in set (``attributes``: id(module) -> {name: value}).
    The live module keeps them: the state is a new dict. Hooks are known by their handles' ids
    (unique in the process), not by the module: a torchmetrics Metric hashes its changing state, and
    a set of modules no longer finds it after an update. An attribute is left out only while it still
    holds the value the plug-in set (an id can be reused by a later object)."""
    def __getstate__(module):
        state = original(module)
        if isinstance(state, dict):
            for key in _HOOK_KEYS:
                hooks = state.get(key)
                if hooks and not ids.isdisjoint(hooks):
                    state = {**state, key: OrderedDict((k, v) for k, v in hooks.items() if k not in ids)}
            hidden = attributes.get(id(module))
            if hidden and any(state.get(name) is value for name, value in hidden.items()):
                state = {k: v for k, v in state.items() if not (k in hidden and v is hidden[k])}
        return state

    return __getstate__
