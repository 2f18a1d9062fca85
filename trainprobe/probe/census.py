"""The counting step: FLOPs, bytes and memory of a training step, from its ops.

Right after warm-up, one or two steps run under a ``TorchDispatchMode`` that sees every aten op
the step runs: forward, backward (on any thread the autograd engine uses) and the optimizer.
For each op it adds up

* the FLOPs of the matrix products (``probe/flops.py``: torch's own formulas, the ones
  ``FlopCounterMode`` uses, plus the CPU's LSTM and attention kernels that table lacks), by
  step phase and by the dtype they ran in;
* the tensor bytes the op read and wrote (for the roofline: bytes per FLOP tells a
  memory-bound op from a compute-bound one);
* the storages it created, followed until freed (``probe/storages.py``): the step's memory
  peak and when it came, what the forward kept for backward, and what outlives the step.

Why a dispatch mode of our own rather than ``FlopCounterMode`` or the profiler's ``with_flops``:
the profiler counts only forward-style matmul and conv calls (PROBE-FACTS: not conv backward,
not attention), and ``FlopCounterMode`` misses the CPU's RNN and attention kernels and gives no
bytes, dtypes or phases; one pass here gives all of it, with torch's formulas where they exist.
The mode costs Python time on every op (a few tens of µs), so these steps are their own window
(``census``), never part of the steady, profiled or cProfile ones.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

import torch
from torch.nn.parameter import is_lazy
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from ..vocabulary import TIMED_PHASE_NAMES
from . import flops as flop_formulas
from .storages import PERSISTENT, Born, StorageLedger, user_sites

__all__ = ["Census", "census_blocked", "leave_inherited_mode"]

_TOP_OPS = 40
# What the second counted step must still hold one step after it, as a share of what the first kept for two,
# for the first step's survivors to be growth every step rather than made once.
_REPEATED = 0.5
_MAX_SITES = 12

# Metadata queries: answered by the tensors themselves (FlopCounterMode skips them the same way).
_METADATA = frozenset(getattr(torch.ops.aten, name).default for name in (
    "is_contiguous", "is_strides_like_format", "is_non_overlapping_and_dense", "size", "sym_size",
    "stride", "sym_stride", "storage_offset", "sym_storage_offset", "numel", "sym_numel", "dim",
) if hasattr(torch.ops.aten, name))

# The phase an allocation is put to: the clock's, but for the code it times inside the loop's own
# (zero_grad, a closure's code) and anomaly mode's stack capture, which count as the loop's ("other").
_PHASES = {p: p for p in TIMED_PHASE_NAMES if p != "debug"}


def census_blocked(compiled: bool) -> Optional[str]:
    """Why the counting step cannot run here (None: it can)."""
    if compiled:
        return ("the model is compiled (torch.compile): its ops run as fused kernels a dispatch-level counter "
                "does not see, so the step's FLOPs and memory were not counted")
    return None


def _nbytes(t: torch.Tensor) -> int:
    try:
        return int(t.numel()) * t.element_size()
    except Exception:  # pylint: disable=broad-except  # sparse, nested or symbolic tensors: not sized
        return 0


def _dtype_name(dtype: torch.dtype) -> str:
    return {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64"}.get(
        dtype, str(dtype).replace("torch.", ""))


_RETURNS: dict[Any, tuple[bool, bool]] = {}


def _returns(func: Any) -> tuple[bool, bool]:
    """(view, writes): whether the op returns a view of an input, and whether it writes into one."""
    known = _RETURNS.get(func)
    if known is None:
        view = write = False
        try:
            for ret in func._schema.returns:  # pylint: disable=protected-access
                info = ret.alias_info
                if info is not None:
                    write = write or info.is_write
                    view = view or not info.is_write
        except Exception:  # pylint: disable=broad-except
            pass
        known = _RETURNS[func] = (view, write)
    return known


def _top(entries: list, key: Callable[[Born], str]) -> dict[str, int]:
    """Bytes by ``key`` of the entries, the largest ``_MAX_SITES``."""
    sums: dict[str, int] = {}
    for e in entries:
        k = key(e)
        sums[k] = sums.get(k, 0) + e.nbytes
    return dict(sorted(sums.items(), key=lambda kv: -kv[1])[:_MAX_SITES])


class _OpRow:
    __slots__ = ("calls", "flops", "bytes", "dtype", "counted")

    def __init__(self) -> None:
        self.calls = 0
        self.flops = 0.0
        self.bytes = 0.0
        self.dtype: Optional[str] = None
        self.counted = False


class _CensusMode(TorchDispatchMode):
    def __init__(self, census: "Census") -> None:
        super().__init__()
        self.census = census

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _METADATA:
            return NotImplemented
        packet = func._overloadpacket  # pylint: disable=protected-access
        if not flop_formulas.known(packet):
            # A composite op with backend kernels (FlopCounterMode does the same): run its
            # decomposition under the mode so the products inside it are counted.
            try:
                with self:
                    result = func.decompose(*args, **kwargs)
            except Exception:  # pylint: disable=broad-except  # no decomposition here: run the op itself
                result = NotImplemented
            if result is not NotImplemented:
                return result
        out = func(*args, **kwargs)
        try:
            self.census.account(func, packet, args, kwargs, out)
        except Exception:  # pylint: disable=broad-except  # counting must never break the step
            self.census.errors += 1
        return out


_ACTIVE: list["_CensusMode"] = []  # the mode while a count runs in this process


def leave_inherited_mode() -> None:
    """In a process forked during a count (a DataLoader worker): leave the inherited mode."""
    while _ACTIVE:
        mode = _ACTIVE.pop()
        try:
            mode.__exit__(None, None, None)
        except Exception:  # pylint: disable=broad-except  # not on top of the stack: leave it
            pass


class Census:
    """The counting window's state: started and stopped at step boundaries by the probe."""

    def __init__(self, phase: Callable[[], Optional[str]], steps: int) -> None:
        self.phase = phase  # the step phase the probe's clock is in now
        self.planned = steps
        self.ledger = StorageLedger()
        self.ops: dict[str, _OpRow] = {}
        self.by_phase: dict[str, float] = {}
        self.by_dtype: dict[str, float] = {}
        self.uncounted: dict[str, int] = {}
        self.errors = 0
        self.step = 0  # the counted step the ops run in now
        self.first_step: Optional[int] = None
        self.samples: list[int] = []
        self.durations: list[float] = []
        self.started: Optional[float] = None
        self._mode: Optional[_CensusMode] = None
        self._hooks: list[Any] = []
        # Memory
        self.device: Optional[str] = None
        self.parameters = 0
        self.parameters_by_dtype: dict[str, int] = {}
        self.buffers = 0
        self.gradients: Optional[int] = None
        self.optimizer_state: Optional[int] = None
        self.at_start: list[int] = []
        self.peak = 0
        self.peak_phase: Optional[str] = None
        self.activation_peak = 0  # the peak outside the optimizer's update (it grows with the batch)
        self.step_peaks: list[tuple[int, Optional[str]]] = []
        self.saved: Optional[int] = None  # forward-made bytes alive when the first backward began
        self.batch: Optional[int] = None
        self._backward_seen = False
        self._blocks: list[tuple[str, str, list[Any]]] = []  # (container, type, blocks)
        self._block_of: dict[int, int] = {}  # id(block module) -> index into _blocks
        self._block_stack: list[int] = []
        self._block_inputs: dict[int, int] = {}
        self._block_saved: dict[int, int] = {}
        self.retained: Optional[int] = None
        self.retained_sites: dict[str, int] = {}
        self.retained_callers: dict[str, int] = {}
        self.retained_phases: dict[str, int] = {}
        self.retained_storages: Optional[int] = None
        self._outlived: dict[int, Any] = {}  # storage key -> entry: what outlived the count, not yet settled
        self.held_one_step: Optional[int] = None  # of that, bytes freed during the next step (a batch held ahead)
        self._second: dict[int, Any] = {}  # what the second counted step made and still held at its end
        self.kept_once: Optional[int] = None  # of what outlived the count, bytes only the first step kept
        self.input_shape: Optional[str] = None  # the counted step's first training input
        self.input_elements: Optional[int] = None
        self.process: dict[str, int] = {}  # this process's memory when the count began (probe/memory.py)
        self.error: Optional[str] = None

    # -- the window ---------------------------------------------------------------
    def start(self, step_index: int, models: list[Any], optimizers: list[Any]) -> None:
        from .memory import process_memory

        self.first_step = step_index
        self.started = time.monotonic()
        self.process = process_memory()
        self._follow_held(models, optimizers)
        self._find_blocks(models)
        self._install_module_hooks()
        self.at_start.append(self.ledger.live)
        self.peak = self.activation_peak = self.ledger.live
        self._mode = _CensusMode(self)
        self._mode.__enter__()
        _ACTIVE.append(self._mode)

    def boundary(self, samples: Optional[int], duration: float) -> bool:
        """A counted step ended; True when the count is done (the caller then calls ``stop``)."""
        if samples:
            self.samples.append(int(samples))
        self.durations.append(duration)
        self.step_peaks.append((self.peak, self.peak_phase))
        self.step += 1
        if self.step >= self.planned:
            return True
        self.at_start.append(self.ledger.live)
        self.peak, self.peak_phase = self.ledger.live, None
        self._backward_seen = False
        return False

    def stop(self) -> None:
        """Leave the mode and take the hooks off; what was counted stays for ``result``."""
        if self._mode is not None:
            mode, self._mode = self._mode, None
            if mode in _ACTIVE:
                _ACTIVE.remove(mode)
            try:
                mode.__exit__(None, None, None)
            except Exception as exc:  # pylint: disable=broad-except  # another mode on top of ours
                self.error = f"the counting mode could not be left cleanly: {exc}"
        for handle in self._hooks:
            handle.remove()
        self._hooks.clear()
        if self.step >= 2:  # made in the first counted step and still alive a whole step later
            alive = list(self.ledger.alive.items())
            self._outlived = {key: e for key, e in alive if e.category == "step" and e.step == 0}
            self._second = {key: e for key, e in alive if e.category == "step" and e.step == 1}
            self._retain(list(self._outlived.values()))

    def _retain(self, alive: list) -> None:
        self.retained = sum(e.nbytes for e in alive)
        self.retained_storages = len(alive)
        self.retained_sites = _top(alive, lambda e: e.site or "unknown")
        self.retained_callers = _top([e for e in alive if e.caller], lambda e: e.caller)
        self.retained_phases = _top(alive, lambda e: e.phase)

    def settle(self) -> None:
        """One step after the count: what outlived it and is gone now was held for one step only, such
        as the next batch that a loader fetching one batch ahead (accelerate's, Lightning's) holds while
        the loop trains on the current one. It is not growth; what is still alive is."""
        if not self._outlived:
            return
        alive = self.ledger.alive
        still = {key: e for key, e in self._outlived.items() if alive.get(key) is e}
        self.held_one_step = sum(e.nbytes for key, e in self._outlived.items() if key not in still)
        # Growth every step: the second counted step leaves memory behind too, one step after it. When it
        # left much less than the first kept (a buffer a framework made once, late: Lightning's one-process
        # DDP on test set 12's VAE kept 15 MiB from one backward and never again), the first step's
        # survivors were made once, and no step after it adds more.
        kept = sum(e.nbytes for e in still.values())
        second = sum(e.nbytes for key, e in self._second.items() if alive.get(key) is e)
        if kept and second < _REPEATED * kept:
            self.kept_once, still = kept, {}
        self._retain(list(still.values()))
        self._outlived, self._second = {}, {}

    @property
    def counted_steps(self) -> int:
        return self.step

    def note_input(self, first_input: Any) -> None:
        """A training forward of the counted steps began with ``first_input``: the base of scaling the
        counted activations to a larger input (the largest the run saw)."""
        if self.input_elements is None and isinstance(first_input, torch.Tensor) and self.step == 0:
            self.input_elements = int(first_input.numel())
            self.input_shape = "x".join(str(d) for d in first_input.shape)

    # -- what the step holds ------------------------------------------------------------
    def _follow_held(self, models: list[Any], optimizers: list[Any]) -> None:
        seen: set[int] = set()
        for model in models:
            for p in model.parameters():
                if is_lazy(p):
                    continue  # a lazy module never called: nothing is held yet
                if self.device is None:
                    self.device = p.device.type
                size = self._hold(p, "parameters", seen)
                if size:
                    key = _dtype_name(p.dtype)
                    self.parameters_by_dtype[key] = self.parameters_by_dtype.get(key, 0) + size
                    self.parameters += size
                if p.grad is not None:
                    self._hold(p.grad, "gradients", seen)
            for b in model.buffers():
                self.buffers += self._hold(b, "buffers", seen)
        for optimizer in optimizers:
            self._hold_state(optimizer, seen)

    def _hold(self, tensor: Any, category: str, seen: set[int]) -> int:
        try:
            storage = tensor.untyped_storage()
        except Exception:  # pylint: disable=broad-except
            return 0
        if id(storage) in seen:
            return 0
        seen.add(id(storage))
        size = int(storage.nbytes())
        entry = self.ledger.entry(storage)
        if entry is not None:
            entry.category = category
            return size
        self.ledger.follow(storage, Born(size, PERSISTENT, "held", category=category))
        return size

    def _hold_state(self, optimizer: Any, seen: set[int]) -> int:
        total = 0
        try:
            states = list(optimizer.state.values())
        except Exception:  # pylint: disable=broad-except
            return 0
        for state in states:
            if isinstance(state, dict):
                for value in state.values():
                    if isinstance(value, torch.Tensor):
                        total += self._hold(value, "optimizer_state", seen)
        return total

    def before_optimizer_step(self, optimizer: Any) -> None:
        """The gradients the update reads: every parameter's .grad, now."""
        seen: set[int] = set()
        total = 0
        for group in getattr(optimizer, "param_groups", ()):
            for p in group.get("params", ()):
                grad = getattr(p, "grad", None)
                if isinstance(grad, torch.Tensor):
                    total += self._hold(grad, "gradients", seen)
        self.gradients = max(self.gradients or 0, total)

    def after_optimizer_step(self, optimizer: Any) -> None:
        self.optimizer_state = max(self.optimizer_state or 0, self._hold_state(optimizer, set()))

    # -- repeated blocks: candidates for activation checkpointing ------------------------
    def _find_blocks(self, models: list[Any]) -> None:
        for model in models:
            for name, module in model.named_modules():
                if not isinstance(module, (torch.nn.ModuleList, torch.nn.Sequential)):
                    continue
                groups: dict[type, list[Any]] = {}
                for child in module.children():
                    if any(True for _ in child.children()) and any(True for _ in child.parameters()):
                        groups.setdefault(type(child), []).append(child)
                for kind, blocks in groups.items():
                    if len(blocks) < 2 or any(id(b) in self._block_of for b in blocks):
                        continue
                    index = len(self._blocks)
                    self._blocks.append((name or type(model).__name__, kind.__name__, blocks))
                    for b in blocks:
                        self._block_of[id(b)] = index

    def _install_module_hooks(self) -> None:
        if not self._block_of:
            return
        from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

        def pre(module: Any, args: Any) -> None:
            index = self._block_of.get(id(module))
            if index is not None and torch.is_grad_enabled():
                self._block_stack.append(index)
                if not self._backward_seen:
                    size = sum(_nbytes(a) for a in tree_leaves(args) if isinstance(a, torch.Tensor))
                    self._block_inputs[index] = self._block_inputs.get(index, 0) + size

        def post(module: Any, args: Any, output: Any) -> None:
            if id(module) in self._block_of and self._block_stack:
                self._block_stack.pop()

        self._hooks.append(register_module_forward_pre_hook(pre))
        self._hooks.append(register_module_forward_hook(post, always_call=True))

    # -- every op ---------------------------------------------------------------------
    def account(self, func: Any, packet: Any, args: tuple, kwargs: dict, out: Any) -> None:
        phase = _PHASES.get(self.phase() or "", "other")
        if phase == "backward" and not self._backward_seen:
            self._backward_seen = True
            self._note_saved()
        name = getattr(packet, "_qualified_op_name", None) or str(packet).replace(".", "::", 1)
        row = self.ops.get(name)
        if row is None:
            row = self.ops[name] = _OpRow()
        row.calls += 1
        view, write = _returns(func)
        inputs = [a for a in tree_leaves((args, kwargs)) if isinstance(a, torch.Tensor)]
        outputs = [o for o in tree_leaves(out) if isinstance(o, torch.Tensor)]
        if row.dtype is None:
            row.dtype = next((_dtype_name(t.dtype) for t in inputs if t.is_floating_point()), None)
        count = flop_formulas.flops_of(packet, args, kwargs, out)
        if count is not None:
            row.counted = True
            row.flops += count
            self.by_phase[phase] = self.by_phase.get(phase, 0.0) + count
            if row.dtype:
                self.by_dtype[row.dtype] = self.by_dtype.get(row.dtype, 0.0) + count
        elif flop_formulas.does_arithmetic(name):
            self.uncounted[name] = self.uncounted.get(name, 0) + 1
        if view and not write:
            return  # a view moves no data and makes no storage
        row.bytes += sum(_nbytes(t) for t in inputs) + sum(_nbytes(t) for t in outputs)
        if not write:
            self._births(outputs, phase)

    def _births(self, outputs: list[torch.Tensor], phase: str) -> None:
        site: Optional[str] = None
        caller: Optional[str] = None
        block = self._block_stack[-1] if self._block_stack and phase == "forward" else None
        for t in outputs:
            try:
                storage = t.untyped_storage()
            except Exception:  # pylint: disable=broad-except
                continue
            size = int(storage.nbytes())
            if not size or self.ledger.entry(storage) is not None:
                continue
            if site is None:
                site, caller = user_sites(4)
                site = site or ""
            if self.ledger.follow(storage, Born(size, self.step, phase, block, site or None, caller)):
                if phase == "data_wait":
                    self.batch = (self.batch or 0) + size if self.step == 0 else self.batch
        live = self.ledger.live
        if live > self.peak:
            self.peak, self.peak_phase = live, phase
        if phase != "optimizer" and live > self.activation_peak:
            self.activation_peak = live

    def _note_saved(self) -> None:
        """Backward begins: what this step's forward made and is still alive was kept for it."""
        if self.step != 0:
            return
        saved = 0
        for e in list(self.ledger.alive.values()):
            if e.step == 0 and e.phase == "forward" and e.category == "step":
                saved += e.nbytes
                if e.block is not None:
                    self._block_saved[e.block] = self._block_saved.get(e.block, 0) + e.nbytes
        self.saved = saved

    # -- the result -------------------------------------------------------------------
    def result(self, reason: Optional[str] = None) -> dict[str, Any]:
        """The record's FlopCount and MemoryCensus, as plain data for the child's event."""
        from ..record_compute import FlopCount, OpCount
        from ..record_memory import BlockMemory, MemoryCensus
        from ..record_base import Availability

        steps = self.step
        if reason or steps == 0:
            why = reason or self.error or "the script ended before the counting step"
            return {"flops": FlopCount(availability=Availability(False, why)).to_dict(),
                    "memory": MemoryCensus(availability=Availability(False, why)).to_dict()}
        samples = sorted(self.samples)[len(self.samples) // 2] if self.samples else None
        ranked = sorted(self.ops.items(), key=lambda kv: (-(kv[1].flops or 0.0), -kv[1].bytes))
        keep = [kv for kv in ranked if kv[1].flops][:_TOP_OPS]
        keep += sorted((kv for kv in ranked if not kv[1].flops), key=lambda kv: -kv[1].bytes)[:_TOP_OPS - len(keep)]
        ops = tuple(OpCount(name=name, calls=row.calls / steps, flops=(row.flops / steps) if row.counted else None,
                            bytes=row.bytes / steps, dtype=row.dtype) for name, row in keep)
        total = sum(self.by_phase.values())
        flops = FlopCount(
            availability=Availability(True), steps=steps, first_step=self.first_step, samples=samples,
            flops=total / steps, by_phase={k: v / steps for k, v in self.by_phase.items()},
            by_dtype={k: v / steps for k, v in self.by_dtype.items()}, ops=ops,
            uncounted=tuple(sorted(self.uncounted)),
            duration=sum(self.durations), step_time=sum(self.durations) / len(self.durations))
        peak = max((p for p, _ in self.step_peaks), default=None)
        peak_phase = next((ph for p, ph in self.step_peaks if p == peak), None)
        blocks = tuple(
            BlockMemory(container=container, block_type=kind, count=len(members),
                        saved=self._block_saved.get(i, 0), inputs=self._block_inputs.get(i, 0))
            for i, (container, kind, members) in enumerate(self._blocks) if self._block_saved.get(i))
        memory = MemoryCensus(
            availability=Availability(True), device=self.device, steps=steps, samples=samples,
            parameters=self.parameters, parameters_by_dtype=dict(self.parameters_by_dtype), buffers=self.buffers,
            gradients=self.gradients, optimizer_state=self.optimizer_state,
            at_step_start=min(self.at_start) if self.at_start else None, step_peak=peak, peak_phase=peak_phase,
            activation_peak=self.activation_peak,
            saved_activations=self.saved, batch=self.batch, retained_per_step=self.retained,
            retained_sites=dict(self.retained_sites), retained_callers=dict(self.retained_callers),
            retained_phases=dict(self.retained_phases), retained_storages=self.retained_storages,
            held_one_step=self.held_one_step, kept_once=self.kept_once, blocks=blocks, input_shape=self.input_shape, input_elements=self.input_elements,
            resident_at_start=self.process.get("resident"), data_at_start=self.process.get("data"),
            address_space_at_start=self.process.get("address_space"))
        return {"flops": flops.to_dict(), "memory": memory.to_dict()}
