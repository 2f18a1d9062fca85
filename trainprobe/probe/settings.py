"""The run's settings, read from the live objects rather than guessed.

The hooks register every DataLoader, optimizer, LR scheduler and top-level
model the script uses (by weak reference, so nothing is kept alive) and count
how they are called. ``read_settings`` turns that into the record's
``Settings``; it runs after warm-up and again at the end, because scripts set
flags late (``cudnn.benchmark = True`` after building the model, say).
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
from torch.nn.parameter import is_lazy

from ..record import BatchVariable, FrameworkInfo, LoaderSettings, ModelInfo, OptimizerSettings, SchedulerSettings, Settings
from .configfiles import ConfigWatch, read_config_files
from .sites import LibraryArgument, FlagBook, SiteBook, UserCode
from .padding import PaddingTally, padding_call
from .unoptimized import CHECKS as UNOPTIMIZED_CHECKS, GradTally
from .sourcelines import argument_written_at, calls_named, cuda_autocast_call

__all__ = ["Registry", "read_settings", "qualname", "unwrap_model"]

_ENV_FLAGS = (
    "CUDA_LAUNCH_BLOCKING",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "CUDA_VISIBLE_DEVICES",
    "PYTORCH_CUDA_ALLOC_CONF",
    "TORCH_COMPILE_DISABLE",
    "WORLD_SIZE",
    "LOCAL_RANK",
)
_MAX_SHAPES = 8


def qualname(obj: Any) -> str:
    kind = obj if isinstance(obj, type) else type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


@dataclass
class LoaderEntry:
    ref: Any
    loader_id: int
    created_at: Optional[str] = None
    iterations: int = 0
    batches: int = 0
    wait_total: float = 0.0
    first_batch_wait: Optional[float] = None
    used_in_training: bool = False
    cached: Optional[LoaderSettings] = None  # last reading, for when the loader is gone
    built: tuple[Optional[str], Optional[str]] = (None, None)  # (built_at, built_by), see probe/sites.py
    rebuilt_from_at: Optional[str] = None  # SiteBook.rebuilt_from
    batch_argument: Optional[LibraryArgument] = None  # SiteBook.batch_argument


@dataclass
class ModelEntry:
    ref: Any
    calls: int = 0
    train_calls: int = 0
    eval_calls: int = 0
    eval_calls_with_grad: int = 0
    eval_calls_with_grad_by_library: int = 0  # of those, the ones a library's code called (probe/sites.py)
    eval_calls_with_grad_before_training: int = 0  # of the others, those made before its first training forward
    eval_with_grad_by: Optional[str] = None  # the module of the library that called the first of them
    shapes: list[str] = field(default_factory=list)
    seen_shapes: set = field(default_factory=set)
    last_device_index: Optional[int] = None  # Tensor.get_device() of the last input
    cached: Optional[ModelInfo] = None
    built: tuple[Optional[str], Optional[str]] = (None, None)
    called_at: Optional[str] = None  # the script's line of the first training forward (instrument.py)
    called_via: tuple[str, ...] = ()  # the script's frames that led to it (sites.called_chain)
    built_via: tuple[str, ...] = ()  # the script's frames that built it (SiteBook.chain)
    moved_via: tuple[str, ...] = ()  # the script's frames of its last .to()/.cuda() before it ran (SiteBook.moved_via)


class Registry:
    """What the script built and how often it used it. Only the main thread writes."""

    def __init__(self, is_user: Optional[UserCode] = None) -> None:
        self.sites = SiteBook(is_user or UserCode(()))  # where the script built its objects
        self.flags = FlagBook(self.sites.is_user)  # its command-line options
        self.config_watch: Optional[ConfigWatch] = None  # the configuration files it reads (probe/configfiles.py)
        self.framework: Optional[FrameworkInfo] = None  # read at the first optimizer step
        self.loop_at: Optional[str] = None
        self.loop_function: Optional[str] = None
        self.batch_variables: tuple[BatchVariable, ...] = ()  # read with the loop's line (probe/batchvars.py)
        self.recomputed_forwards = 0  # top-level module forwards inside backward (activation checkpointing)
        self.checkpoint_called_at: Optional[str] = None  # the script's first checkpoint(...) line (instrument.py)
        self.padding = PaddingTally()  # the first training batches' padding (probe/padding.py)
        self.unoptimized = GradTally()  # weights with gradients that no optimizer holds (probe/unoptimized.py)
        # nn.MultiheadAttention's training calls that made their weights (need_weights=True): count, seconds, and
        # the script's line of the first (instrument.py)
        self.attention_weights_calls = 0
        self.attention_weights_seconds = 0.0
        self.attention_weights_at: Optional[str] = None
        self.loaders: dict[int, LoaderEntry] = {}  # id(loader) -> entry
        self.optimizers: dict[int, list[Any]] = {}  # id -> [weakref, steps, last reading, built]
        self.schedulers: dict[int, list[Any]] = {}  # id -> [weakref, steps, last reading, built]
        self.models: dict[int, ModelEntry] = {}
        self.zero_grad_calls = 0
        self.zero_grad_set_to_none_false = 0
        self.autocast_forwards = 0
        self.autocast_device: Optional[str] = None
        self.autocast_dtype: Optional[str] = None
        self.grad_scaler_used = False
        # Anomaly mode seen recording a stack during a step: a library may switch it on only around each
        # step's forward and backward (torchtnt's AutoUnit(detect_anomaly=True)), off when settings are read.
        self.anomaly_seen = False
        self.backward_calls = 0
        self.optimizer_steps = 0
        self.devices_used: set[str] = set()
        self.last_loader: Optional[LoaderEntry] = None
        # The code that asked for the first batch a training step used: a library's module, or "" for the
        # script's own (None: not yet, or no DataLoader). A library that fetches the batches runs the loop.
        self.batches_fetched_by: Optional[str] = None

    def loader(self, loader: Any) -> LoaderEntry:
        entry = self.loaders.get(id(loader))
        if entry is None or entry.ref() is not loader:
            entry = LoaderEntry(weakref.ref(loader), len(self.loaders), built=self.sites.of(loader),
                                rebuilt_from_at=self.sites.rebuilt_from(loader),
                                batch_argument=self.sites.library_argument(loader))
            self.loaders[id(loader)] = entry
            _loader_settings(entry)  # read now: the loader may be gone by the next reading
        return entry

    def optimizer_step(self, optimizer: Any) -> None:
        self.optimizer_steps += 1
        entry = self.optimizers.get(id(optimizer))
        if entry is None or entry[0]() is not optimizer:
            entry = self.optimizers[id(optimizer)] = [weakref.ref(optimizer), 0, None, self.sites.of(optimizer)]
        entry[1] += 1

    def note_gradients(self) -> None:
        """Just after an optimizer step (the first few only): the trained models' weights that have gradients
        while no optimizer the script built holds them (probe/unoptimized.py)."""
        if self.unoptimized.checks >= UNOPTIMIZED_CHECKS:
            return
        models = [(unwrap_model(model)[0], entry.built[0]) for entry, model in
                  ((entry, entry.ref()) for entry in list(self.models.values()))
                  if model is not None and entry.train_calls]
        optimizers = [o for o in (entry[0]() for entry in self.optimizers.values()) if o is not None]
        self.unoptimized.check(models, optimizers + self.sites.alive(torch.optim.Optimizer))

    def scheduler_step(self, scheduler: Any) -> None:
        entry = self.schedulers.get(id(scheduler))
        if entry is None or entry[0]() is not scheduler:
            entry = self.schedulers[id(scheduler)] = [weakref.ref(scheduler), -1, None, self.sites.of(scheduler)]
        entry[1] += 1  # the constructor's own first step() is not the script's

    def model_call(self, module: Any, training: bool, grad: bool, first_input: Any) -> ModelEntry:
        entry = self.models.get(id(module))
        new = entry is None or entry.ref() is not module
        if new:
            inner = unwrap_model(module)[0]
            # A wrapper moved as a whole (nn.DataParallel(model).cuda()) was moved after what it wraps was built
            moved = self.sites.moved_via(module) or self.sites.moved_via(inner)
            entry = ModelEntry(weakref.ref(module), built=self.sites.of(inner), built_via=self.sites.chain(inner),
                               moved_via=moved)
            self.models[id(module)] = entry
        entry.calls += 1
        if training and grad:
            entry.train_calls += 1
        else:
            entry.eval_calls += 1
            if grad:
                entry.eval_calls_with_grad += 1
        if isinstance(first_input, torch.Tensor):
            # Runs on every top-level forward: compare the shape as it comes, format it once.
            shape = first_input.shape
            if shape not in entry.seen_shapes and len(entry.shapes) < _MAX_SHAPES:
                entry.seen_shapes.add(shape)
                entry.shapes.append("x".join(str(d) for d in shape))
            # get_device() is a cheap index (-1 on the CPU); the device's name (~0.5 µs) is read
            # only when the index changes.
            index = first_input.get_device()
            if index != entry.last_device_index:
                entry.last_device_index = index
                self.devices_used.add(first_input.device.type)
        if new:
            try:
                _model_info(entry)  # read now: the model may be gone by the next reading
            except Exception:  # pylint: disable=broad-except  # a reading must never break the script's forward
                pass  # read again at the end
        return entry


def _library_loader(loader: Any) -> Any:
    """The library's own DataLoader behind the stand-in it gave torch's loader iterators, or None.
    fastai's DataLoader hands torch a ``_FakeLoader`` that points back to it as ``.d``: the batch size
    (``bs``), the dataset and drop_last are read there; workers and pinning from the stand-in."""
    if isinstance(loader, torch.utils.data.DataLoader):
        return None
    owner = getattr(loader, "d", None)
    return owner if owner is not None and hasattr(owner, "bs") else None


def _loader_settings(entry: LoaderEntry) -> Optional[LoaderSettings]:
    # Scripts often drop their loaders before the end (a main() that returned):
    # then the last reading stands, with the counters brought up to date.
    loader = entry.ref()
    if loader is None:
        if entry.cached is None:
            return None
        return dataclasses.replace(
            entry.cached, iterations=entry.iterations, batches=entry.batches, wait_total=entry.wait_total,
            first_batch_wait=entry.first_batch_wait, used_in_training=entry.used_in_training,
        )
    owner = _library_loader(loader)
    dataset = getattr(loader, "dataset", None)
    if dataset is loader and owner is not None:
        dataset = getattr(owner, "dataset", None)
    try:
        dataset_len = len(dataset)  # type: ignore[arg-type]
    except Exception:
        dataset_len = None
    context = getattr(loader, "multiprocessing_context", None)
    if context is not None:
        start_method = context.get_start_method() if hasattr(context, "get_start_method") else str(context)
    elif loader.num_workers > 0:
        start_method = torch.multiprocessing.get_start_method(allow_none=True) or "fork"
    else:
        start_method = None
    sampler = getattr(loader, "sampler", None)
    written = _batch_size_written(entry.rebuilt_from_at or entry.built[0])
    entry.cached = LoaderSettings(
        loader_id=entry.loader_id,
        batch_size=getattr(loader, "batch_size", None) if owner is None else getattr(owner, "bs", None),
        num_workers=loader.num_workers,
        pin_memory=bool(loader.pin_memory),
        pin_memory_device=getattr(loader, "pin_memory_device", None) or None,
        persistent_workers=bool(loader.persistent_workers),
        prefetch_factor=loader.prefetch_factor,
        drop_last=bool(getattr(owner if owner is not None else loader, "drop_last", False)),
        timeout=float(loader.timeout),
        start_method=start_method,
        dataset_type=qualname(dataset) if dataset is not None else "",
        dataset_len=dataset_len,
        iterable=isinstance(dataset, torch.utils.data.IterableDataset),
        sampler_type=qualname(sampler) if sampler is not None else None,
        collate_fn=getattr(loader.collate_fn, "__qualname__", None),
        created_at=entry.created_at,
        built_at=entry.built[0],
        built_by=entry.built[1],
        rebuilt_from_at=entry.rebuilt_from_at,
        batch_call=entry.batch_argument.call if entry.batch_argument else None,
        batch_param=entry.batch_argument.param if entry.batch_argument else None,
        batch_call_at=entry.batch_argument.at if entry.batch_argument else None,
        batch_size_at=written[0],
        batch_size_written=written[1],
        iterations=entry.iterations,
        batches=entry.batches,
        wait_total=entry.wait_total,
        first_batch_wait=entry.first_batch_wait,
        used_in_training=entry.used_in_training,
    )
    return entry.cached


def _batch_size_written(site: Optional[str]) -> tuple[Optional[str], Optional[int]]:
    """The line of the script's DataLoader call at ``site`` that writes batch_size (its keyword, or
    DataLoader's second positional argument), and the integer literal written there; (None, None) unread."""
    return argument_written_at(site, "batch_size", 1, "DataLoader") or (None, None)


def _optimizer_settings(index: int, optimizer: Any, steps: int,
                        built: tuple[Optional[str], Optional[str]] = (None, None),
                        knob: Optional[LibraryArgument] = None) -> OptimizerSettings:
    defaults = getattr(optimizer, "defaults", {}) or {}
    params = [p for g in optimizer.param_groups for p in g.get("params", [])]
    return OptimizerSettings(
        optimizer_id=index,
        type=qualname(optimizer),
        lr=_number(defaults.get("lr")),
        weight_decay=_number(defaults.get("weight_decay")),
        foreach=defaults.get("foreach"),
        fused=defaults.get("fused"),
        capturable=defaults.get("capturable"),
        param_groups=len(optimizer.param_groups),
        params=sum(p.numel() for p in params),
        param_devices=tuple(sorted({str(p.device) for p in params})),
        steps=steps,
        built_at=built[0],
        built_by=built[1],
        library_call=knob.call if knob else None,
        library_param=knob.param if knob else None,
        library_at=knob.at if knob else None,
    )


def _number(value: Any) -> Optional[float]:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# Wrappers put around the user's model, by class name (their library need not be imported here), and the
# attribute that holds the model: DataParallel and DDP, torch.compile's, Lightning Fabric's fabric.setup(model).
_WRAPPER_ATTRIBUTES = {"DataParallel": "module", "DistributedDataParallel": "module", "OptimizedModule": "_orig_mod",
                       "_FabricModule": "_forward_module"}


def unwrap_model(module: Any) -> tuple[Any, Optional[str]]:
    """The user's model inside the wrappers around it, and the outermost wrapper's class name (None when unwrapped):
    the model's type, where it was built and its children are the user's ("its child module `_forward_module`
    takes 94% of the step" names a wrapper's attribute)."""
    wrapper = None
    for _ in range(8):  # wrappers of wrappers (a compiled model under DDP), never a cycle
        name = type(module).__name__
        inner = getattr(module, _WRAPPER_ATTRIBUTES.get(name, ""), None)
        if not isinstance(inner, torch.nn.Module):
            break
        wrapper = wrapper or name
        module = inner
    return module, wrapper


def _model_info(entry: ModelEntry) -> Optional[ModelInfo]:
    module = entry.ref()
    if module is None:
        if entry.cached is None:
            return None
        return dataclasses.replace(
            entry.cached, calls=entry.calls, train_calls=entry.train_calls, eval_calls=entry.eval_calls,
            eval_calls_with_grad=entry.eval_calls_with_grad,
            eval_calls_with_grad_by_library=entry.eval_calls_with_grad_by_library,
            eval_calls_with_grad_before_training=entry.eval_calls_with_grad_before_training,
            eval_with_grad_by=entry.eval_with_grad_by, input_shapes=tuple(entry.shapes),
            train_called_at=entry.called_at, train_called_via=entry.called_via,
        )
    inner, wrapper = unwrap_model(module)
    # A lazy module's parameters (nn.LazyLinear, nn.LazyConv2d) have no shape until its first forward:
    # any torch call on one raises, so they are left out until they are made.
    params = [p for p in inner.parameters() if not is_lazy(p)]
    if not params:
        return None  # loss modules and other parameter-free calls
    conv = batchnorm = False
    channels_last = None
    for sub in inner.modules():
        if isinstance(sub, torch.nn.modules.conv._ConvNd):
            conv = True
            if channels_last is None and not is_lazy(sub.weight) and sub.weight.dim() == 4:
                channels_last = sub.weight.is_contiguous(memory_format=torch.channels_last) and not sub.weight.is_contiguous()
        elif isinstance(sub, torch.nn.modules.batchnorm._BatchNorm):
            batchnorm = True
    entry.cached = ModelInfo(
        type=qualname(inner),
        wrapper=wrapper,
        params=sum(p.numel() for p in params),
        trainable_params=sum(p.numel() for p in params if p.requires_grad),
        param_bytes=sum(p.numel() * p.element_size() for p in params),
        dtypes=tuple(sorted({str(p.dtype).replace("torch.", "") for p in params})),
        devices=tuple(sorted({str(p.device) for p in params})),
        channels_last=channels_last,
        has_conv=conv,
        has_batchnorm=batchnorm,
        calls=entry.calls,
        train_calls=entry.train_calls,
        eval_calls=entry.eval_calls,
        eval_calls_with_grad=entry.eval_calls_with_grad,
        eval_calls_with_grad_by_library=entry.eval_calls_with_grad_by_library,
        eval_calls_with_grad_before_training=entry.eval_calls_with_grad_before_training,
        eval_with_grad_by=entry.eval_with_grad_by,
        input_shapes=tuple(entry.shapes),
        built_at=entry.built[0],
        built_by=entry.built[1],
        built_via=entry.built_via,
        moved_via=entry.moved_via,
        train_called_at=entry.called_at, train_called_via=entry.called_via,
    )
    return entry.cached


def _safe(getter, default=None):
    try:
        return getter()
    except Exception:
        return default


def _compile_counts() -> tuple[Optional[int], Optional[int]]:
    try:
        from torch._dynamo.utils import counters
    except Exception:
        return None, None
    stats = counters.get("stats", {})
    graphs = stats.get("unique_graphs")
    recompiles = sum(counters.get("recompiles", {}).values()) if "recompiles" in counters else None
    return graphs, recompiles


def read_settings(reg: Registry, step_boundary: Optional[str], compiled: bool) -> Settings:
    reg.flags.note_click()  # a click or typer command's options, while the loop runs inside it
    reg.flags.note_fire()  # a function python-fire runs: its parameters, while the loop runs inside it
    loaders = tuple(s for s in (_loader_settings(e) for e in reg.loaders.values()) if s is not None)
    optimizers = []
    for index, entry in enumerate(reg.optimizers.values()):
        opt = entry[0]()
        if opt is not None:
            entry[2] = _optimizer_settings(index, opt, entry[1], entry[3], reg.sites.library_argument(opt))
        if entry[2] is not None:
            optimizers.append(dataclasses.replace(entry[2], steps=entry[1]))
    schedulers = []
    for entry in reg.schedulers.values():
        sched = entry[0]()
        if sched is not None:
            entry[2] = qualname(sched)
        if entry[2] is not None:
            per = max(entry[1], 0) / reg.optimizer_steps if reg.optimizer_steps else None
            schedulers.append(SchedulerSettings(type=entry[2], steps=max(entry[1], 0), per_optimizer_step=per,
                                                built_at=entry[3][0], built_by=entry[3][1]))
    models = tuple(m for m in (_model_info(e) for e in reg.models.values()) if m is not None)
    wrappers = {m.wrapper for m in models}
    devices = set(reg.devices_used)
    for m in models:
        devices.update(d.split(":")[0] for d in m.devices)
    cuda_available = bool(_safe(torch.cuda.is_available, False))
    graphs, recompiles = _compile_counts() if compiled else (None, None)
    distributed = bool(_safe(lambda: torch.distributed.is_available() and torch.distributed.is_initialized(), False))
    world = _safe(torch.distributed.get_world_size) if distributed else None
    backward_calls = reg.backward_calls
    own_files = reg.sites.is_user.seen()  # where the script's own calls are looked for
    return Settings(
        dataloaders=loaders,
        optimizers=tuple(optimizers),
        schedulers=tuple(schedulers),
        models=models,
        zero_grad_calls=reg.zero_grad_calls,
        zero_grad_set_to_none_false=reg.zero_grad_set_to_none_false,
        autocast_forwards=reg.autocast_forwards,
        autocast_device=reg.autocast_device,
        autocast_dtype=reg.autocast_dtype,
        grad_scaler_used=reg.grad_scaler_used,
        compiled=compiled or "OptimizedModule" in wrappers,
        compile_graphs=graphs,
        compile_recompiles=recompiles,
        cudnn_enabled=_safe(lambda: bool(torch.backends.cudnn.enabled)),
        cudnn_benchmark=_safe(lambda: bool(torch.backends.cudnn.benchmark)),
        cudnn_deterministic=_safe(lambda: bool(torch.backends.cudnn.deterministic)),
        deterministic_algorithms=_safe(torch.are_deterministic_algorithms_enabled),
        float32_matmul_precision=_safe(torch.get_float32_matmul_precision),
        cuda_matmul_allow_tf32=_safe(lambda: bool(torch.backends.cuda.matmul.allow_tf32)),
        cudnn_allow_tf32=_safe(lambda: bool(torch.backends.cudnn.allow_tf32)),
        anomaly_detection=reg.anomaly_seen or _safe(torch.is_anomaly_enabled),
        autograd_profiler_enabled=_safe(lambda: bool(torch.autograd.profiler._is_profiler_enabled)),
        cuda_launch_blocking=os.environ.get("CUDA_LAUNCH_BLOCKING", "0") not in ("", "0"),
        # Only where the run started CUDA: reading the mode starts it (torch.cuda._lazy_init), and a CPU run on a
        # GPU machine then held a CUDA context and paid the allocator's per-step reads (an H200, 2026-11-26).
        sync_debug_mode=(_safe(torch.cuda.get_sync_debug_mode)
                         if cuda_available and _safe(torch.cuda.is_initialized, False) else None),
        data_parallel="DataParallel" in wrappers,
        distributed=distributed or "DistributedDataParallel" in wrappers,
        world_size=world,
        cuda_available=cuda_available,
        cuda_used="cuda" in devices,
        devices_used=tuple(sorted(devices)),
        torch_threads=_safe(torch.get_num_threads),
        backward_calls=backward_calls,
        optimizer_steps=reg.optimizer_steps,
        step_boundary=step_boundary or "none",
        grad_accumulation=(backward_calls / reg.optimizer_steps) if reg.optimizer_steps else None,
        recomputed_forwards=reg.recomputed_forwards,
        checkpoint_called_at=reg.checkpoint_called_at,
        env_flags={k: os.environ[k] for k in _ENV_FLAGS if k in os.environ},
        framework=reg.framework,
        loop_at=reg.loop_at,
        loop_function=reg.loop_function,
        cli_flags=tuple(reg.flags.flags.values()),
        batch_variables=reg.batch_variables,
        padding=reg.padding.result(padding_call(own_files) if reg.padding.batches else None),
        attention_call_at=calls_named(own_files, "scaled_dot_product_attention"),
        cuda_autocast_at=None if any(str(d).startswith("cuda") for d in devices) else cuda_autocast_call(own_files),
        attention_weights_calls=reg.attention_weights_calls,
        attention_weights_seconds=reg.attention_weights_seconds,
        attention_weights_at=reg.attention_weights_at,
        unoptimized_grads=reg.unoptimized.result,
        config_files=read_config_files(reg.config_watch.paths) if reg.config_watch is not None else (),
    )
