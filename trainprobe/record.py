"""The run record: everything the probe measured about one run of a script.

This is the contract between the probe and every later stage (facts, rules,
report, check, what-if). It is saved as ``run.json``; ``SCHEMA_VERSION`` is
bumped whenever a field changes meaning. Conventions, so that readers never
guess units:

* times are seconds (float), relative to ``Invocation.t0_monotonic`` (the
  parent's ``time.monotonic()`` when the script was launched) unless a name
  says otherwise; durations are seconds;
* sizes are bytes; shares are fractions in [0, 1]; percentages are named
  ``*_percent``;
* a measurement that could not be made is ``None`` and, where it matters, an
  :class:`Availability` says why.

Time series are stored column-wise (one tuple per quantity) to keep long runs
small; ``t`` holds the sample times.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Optional

from .jsonio import JsonMixin
from .record_base import Availability
from .record_compute import Compute, ComputePeak, FlopCount, OpCount
from .record_memory import BlockMemory, DeviceMemorySteps, Memory, MemoryCensus

__all__ = [
    "SCHEMA_VERSION",
    "Availability",
    "Invocation",
    "GpuInfo",
    "DiskInfo",
    "Environment",
    "LoaderSettings",
    "OptimizerSettings",
    "FrameworkInfo",
    "CliFlag",
    "BatchVariable",
    "ConfigEntry",
    "ConfigFile",
    "Padding",
    "UnoptimizedGrads",
    "SchedulerSettings",
    "ModelInfo",
    "Settings",
    "RankSummary",
    "DdpSettings",
    "JobSummary",
    "Step",
    "MicroBatch",
    "MICRO_PARTS",
    "OpStat",
    "OpTime",
    "ModuleTime",
    "ProfilerSummary",
    "FuncStat",
    "TimePart",
    "CreationSite",
    "Hotspots",
    "WorkerStats",
    "HostSamples",
    "ProcessSeries",
    "GpuSeries",
    "Samples",
    "Outcome",
    "RunRecord",
    "Compute",
    "ComputePeak",
    "FlopCount",
    "OpCount",
    "Memory",
    "MemoryCensus",
    "BlockMemory",
    "DeviceMemorySteps",
]

# 2: a job of several ranks (RunRecord.job, RankSummary's rank figures); version-1 records still load.
SCHEMA_VERSION = 2

# Step phases, in the order they appear in a default bounded run.
PHASE_WARMUP = "warmup"  # first steps: compilation, autotune, first allocations
PHASE_CENSUS = "census"  # the counting step(s) after warm-up: FLOPs, bytes and memory (probe/census.py), slower
PHASE_STEADY = "steady"  # the measured window: hooks only, no profiler
PHASE_PROFILED = "profiled"  # torch.profiler window: op-level figures, ~4% slower
PHASE_CPROFILE = "cprofile"  # cProfile window: Python hotspots, slower
PHASE_AFTER = "after"  # steps after all windows (only with --full)


@dataclass(frozen=True)
class Invocation(JsonMixin):
    """How the script was run."""

    script: Optional[str] = None  # absolute path, or None with -m
    module: Optional[str] = None  # with -m
    args: tuple[str, ...] = ()
    cwd: str = ""
    command_line: str = ""  # as the user could type it again
    started_at: str = ""  # ISO 8601, local time with offset
    t0_monotonic: float = 0.0
    python_executable: str = ""
    trainprobe_version: str = ""
    options: dict[str, object] = field(default_factory=dict)  # probe options in force
    redacted: tuple[str, ...] = ()  # arguments whose secret values are saved as <redacted> (probe/redact.py)


@dataclass(frozen=True)
class GpuInfo(JsonMixin):
    index: int = 0
    name: str = ""
    uuid: Optional[str] = None
    memory_total: Optional[int] = None
    compute_capability: Optional[str] = None  # "9.0"
    power_limit_w: Optional[float] = None
    power_max_w: Optional[float] = None
    pcie_gen: Optional[int] = None
    pcie_gen_max: Optional[int] = None
    pcie_width: Optional[int] = None
    pcie_width_max: Optional[int] = None
    bf16: Optional[bool] = None
    tf32: Optional[bool] = None


@dataclass(frozen=True)
class DiskInfo(JsonMixin):
    """The storage under a path (the script's folder or the data folder)."""

    path: str = ""
    device: Optional[str] = None
    fstype: Optional[str] = None
    rotational: Optional[bool] = None  # a hint only: virtio disks report 1 on SSDs
    free_bytes: Optional[int] = None
    total_bytes: Optional[int] = None
    network: Optional[bool] = None  # nfs, cifs, fuse...


@dataclass(frozen=True)
class Environment(JsonMixin):
    python: str = ""
    platform: str = ""
    hostname_hash: Optional[str] = None  # never the name itself
    torch: Optional[str] = None
    torch_cuda_build: Optional[str] = None  # torch.version.cuda
    torchvision: Optional[str] = None
    cudnn: Optional[int] = None
    cuda_available: bool = False
    gpu_count: int = 0
    gpus: tuple[GpuInfo, ...] = ()
    driver: Optional[str] = None
    nvml: Availability = field(default_factory=Availability)
    cpu_model: Optional[str] = None
    logical_cores: Optional[int] = None
    physical_cores: Optional[int] = None
    usable_cores: Optional[int] = None  # affinity and cgroup quota applied
    cgroup_cpu_limit: Optional[float] = None
    ram_total: Optional[int] = None
    swap_total: Optional[int] = None
    shm_total: Optional[int] = None
    pillow: Optional[str] = None
    pillow_simd: Optional[bool] = None
    libjpeg_turbo: Optional[bool] = None
    torch_threads: Optional[int] = None
    torch_interop_threads: Optional[int] = None
    disks: tuple[DiskInfo, ...] = ()
    # The C library the script's Python links ("glibc 2.36"; "" where Python cannot tell), an allocator
    # the run preloads in its place (LD_PRELOAD naming jemalloc, tcmalloc or mimalloc), and the glibc
    # malloc settings the run's environment already sets ("MALLOC_MMAP_MAX_=0"): allocator-page-churn's.
    libc: Optional[str] = None
    malloc_preload: str = ""
    malloc_env: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoaderSettings(JsonMixin):
    """One DataLoader the script iterated over, read from the object itself."""

    loader_id: int = 0  # order of first iteration
    batch_size: Optional[int] = None
    num_workers: int = 0
    pin_memory: bool = False
    pin_memory_device: Optional[str] = None
    persistent_workers: bool = False
    prefetch_factor: Optional[int] = None
    drop_last: bool = False
    timeout: float = 0.0
    start_method: Optional[str] = None  # fork, spawn, forkserver
    dataset_type: str = ""  # qualified class name
    dataset_len: Optional[int] = None
    iterable: bool = False
    sampler_type: Optional[str] = None
    collate_fn: Optional[str] = None
    created_at: Optional[str] = None  # "file.py:line": the first frame outside torch when it was first iterated
    # Where it was built: the user's line that called DataLoader(...) (or led to it), and the library
    # module that called it when it was not the user's code ("transformers.trainer"); see probe/sites.py.
    built_at: Optional[str] = None
    built_by: Optional[str] = None
    # A loader a library made from one the script built (Opacus' make_private, accelerate's prepare): the
    # script's line that built that one, where its settings are changed. None otherwise.
    rebuilt_from_at: Optional[str] = None
    # A loader a library built from an argument of the function the script's line called (scvi-tools'
    # model.train(batch_size=...)): that function's name and the argument, the user's knob for the batch size.
    batch_call: Optional[str] = None
    batch_param: Optional[str] = None
    # When the function was a method that left the setting to its object (neural_prophet's m.fit(df)), the
    # knob is the constructor's argument (batch_call is then the class): the script's line that built it.
    batch_call_at: Optional[str] = None
    # The script's line, in the call at rebuilt_from_at or built_at, that writes the batch size (``batch_size=32,``
    # inside a DataLoader call that spans lines), and the integer written there when it is a literal: where a
    # batch-size fix goes, and a sign that no command-line flag sets this loader's batch. None when unread.
    batch_size_at: Optional[str] = None
    batch_size_written: Optional[int] = None
    iterations: int = 0  # iterators created (≈ epochs)
    batches: int = 0
    wait_total: float = 0.0  # seconds the loop waited in __next__
    first_batch_wait: Optional[float] = None  # seconds, first batch of the first epoch
    used_in_training: bool = False  # a batch from it preceded a backward


@dataclass(frozen=True)
class OptimizerSettings(JsonMixin):
    optimizer_id: int = 0
    type: str = ""  # "torch.optim.adam.Adam"
    lr: Optional[float] = None
    weight_decay: Optional[float] = None
    foreach: Optional[bool] = None  # None: torch's default
    fused: Optional[bool] = None
    capturable: Optional[bool] = None
    param_groups: int = 0
    params: int = 0  # number of elements
    param_devices: tuple[str, ...] = ()
    steps: int = 0
    built_at: Optional[str] = None  # as LoaderSettings.built_at
    built_by: Optional[str] = None
    # An optimizer a library built from an argument of the function the script's line called, or of that
    # function's object's constructor (darts' NBEATSModel(optimizer_kwargs=...) before model.fit()): the function
    # or class, the argument, and the script's line that passes it when not the call's own (probe/sites.py).
    library_call: Optional[str] = None
    library_param: Optional[str] = None
    library_at: Optional[str] = None


@dataclass(frozen=True)
class SchedulerSettings(JsonMixin):
    type: str = ""
    steps: int = 0  # calls to .step() after construction
    per_optimizer_step: Optional[float] = None  # steps / optimizer steps
    built_at: Optional[str] = None  # as LoaderSettings.built_at
    built_by: Optional[str] = None


@dataclass(frozen=True)
class ModelInfo(JsonMixin):
    """A top-level module with parameters that the loop called."""

    type: str = ""
    wrapper: Optional[str] = None  # DataParallel, DistributedDataParallel, OptimizedModule
    params: int = 0
    trainable_params: int = 0
    param_bytes: int = 0
    dtypes: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()
    channels_last: Optional[bool] = None  # memory format of 4-d weights
    has_conv: bool = False
    has_batchnorm: bool = False
    calls: int = 0
    train_calls: int = 0
    eval_calls: int = 0
    eval_calls_with_grad: int = 0  # eval-mode forwards that still built a graph
    eval_calls_with_grad_by_library: int = 0  # of those, the ones a library's code called, not the script's
    # Of eval_calls_with_grad, the script's own made before the model's first training forward: a model summary or
    # FLOP count (torchreid's compute_model_complexity), not a validation of the model being trained.
    eval_calls_with_grad_before_training: int = 0
    eval_with_grad_by: Optional[str] = None  # the module of the library that called the first of them
    input_shapes: tuple[str, ...] = ()  # distinct first-input shapes seen (capped)
    built_at: Optional[str] = None  # as LoaderSettings.built_at
    built_by: Optional[str] = None
    train_called_at: Optional[str] = None  # "file.py:line": the script's line of its first training forward
    # The script's frames that led to that forward, innermost first, while they are the script's own: each
    # "file.py:line:first" (first: the line its function starts at), to find the loop's own line among them.
    train_called_via: tuple[str, ...] = ()
    # The script's frames that built it, innermost first, while they are the script's own ("file.py:line:first"
    # each): a model a helper built (build_wideresnet() in models/) is held by the function that called the
    # helper; that function's line is where the script wraps or moves the model.
    built_via: tuple[str, ...] = ()
    # The script's frames of the last .to(...)/.cuda() its own code called on the model before its first forward,
    # innermost first, as built_via: FixMatch's main() moving what create_model() built. () when the script
    # moved it in no line of its own (a CPU run that never moves it; a library that moves it).
    moved_via: tuple[str, ...] = ()


@dataclass(frozen=True)
class FrameworkInfo(JsonMixin):
    """The library that drives the training loop (Hugging Face Trainer, Lightning...), read from the
    frames on the stack at the loop's first optimizer step (probe/sites.py)."""

    name: str = ""  # transformers (its Trainer), lightning, accelerate, timm, fabric...
    version: Optional[str] = None
    driver: str = ""  # the module of its outermost frame in the loop: "transformers.trainer"
    entry_at: Optional[str] = None  # the user's line that handed the loop over: trainer.train(), trainer.fit()
    config_call: Optional[str] = None  # the call that holds its settings: TrainingArguments, Trainer, Accelerator
    config_at: Optional[str] = None  # where the script makes that call, "file.py:line" (None: not in its source)
    # Where that call takes its settings from an argument of the function around it (a library's trainer that
    # builds Accelerator(**accelerate_kwargs)): the function as the user calls it (a class for an __init__), the
    # argument, whether it is a dict of keywords (else the setting itself), and the user's line that calls it.
    config_owner: Optional[str] = None
    config_param: Optional[str] = None
    config_param_keywords: bool = False
    config_owner_at: Optional[str] = None
    # An installed library between the script and the framework that drives it for the script (neuralforecast
    # builds and runs a Lightning Trainer): its top-level package. The framework's knobs go through it.
    via: Optional[str] = None
    settings: dict[str, str] = field(default_factory=dict)  # its settings, read from the live objects
    hooks: dict[str, str] = field(default_factory=dict)  # the user's methods it calls -> "file.py:line"


@dataclass(frozen=True)
class Padding(JsonMixin):
    """How much of the training batches' token slots was padding, read from their attention masks (the
    first batches of a run, probe/padding.py). A slot is one position of the batch's (rows x length)
    token grid; padding to each batch's own longest sample would leave ``longest`` of the ``slots``."""

    batches: int = 0  # training batches read
    slots: int = 0  # rows x padded length, summed over them
    tokens: int = 0  # real tokens (the mask's ones)
    longest: int = 0  # rows x the batch's longest real length: the slots padding to the longest would keep
    length: int = 0  # the longest padded length seen
    mask: str = ""  # where the mask was read: "attention_mask", "batch[1]"
    set_at: Optional[str] = None  # the script's call that asks for the padding (padding="max_length"): file:line


@dataclass(frozen=True)
class UnoptimizedGrads(JsonMixin):
    """Weights that had gradients at an optimizer step while no optimizer of the run held them
    (probe/unoptimized.py): a perceptual-loss network or a teacher left trainable, a backbone whose optimizer was
    built from the head's parameters alone. Read at the first optimizer steps; the reading with the most kept."""

    params: int = 0  # elements of such weights
    tensors: int = 0
    optimized_params: int = 0  # elements with gradients that an optimizer does hold
    # Where they sit: "path (module class)" -> elements, the largest first (at most 6); path is the direct
    # child's attribute in the model that holds them ("_vgg"), or the model's class for a model of its own.
    modules: dict[str, int] = field(default_factory=dict)
    # The models' direct children (by attribute, as ModuleTime.name) whose weights with gradients all are such:
    # their backward's weight-gradient products are what freezing them saves.
    children: tuple[str, ...] = ()
    model_built_at: Optional[str] = None  # where the model that holds the most of them was built: "file.py:line"


@dataclass(frozen=True)
class CliFlag(JsonMixin):
    """A command-line option the script's argparse parser declared, and the value it parsed."""

    options: tuple[str, ...] = ()  # ("-j", "--workers")
    dest: str = ""
    value: Optional[str] = None  # as text
    choices: tuple[str, ...] = ()  # the values it accepts, where the parser lists them (--precision amp_bf16...)
    declared_at: Optional[str] = None  # the script's add_argument(...) line that declared it: "file.py:line"
    # The line of that call that writes its default (`default=100,` three lines into a multi-line add_argument(...)),
    # where a user changes it; None when the call writes none or its source was not read.
    default_at: Optional[str] = None


@dataclass(frozen=True)
class BatchVariable(JsonMixin):
    """A variable of the script that held an integer batch size at its first optimizer step, and the line that
    assigns it that value as a literal (``batch_size = 32``): the knob of a batch the script slices itself, or
    passes to ``DataLoader(...)`` by name (probe/batchvars.py)."""

    name: str = ""
    value: int = 0
    at: str = ""  # "file.py:line" of the assignment
    passed_to_loader: bool = False  # a DataLoader(...) call of the script's passes this variable itself


@dataclass(frozen=True)
class ConfigEntry(JsonMixin):
    """One key of a configuration file, where the file sets it."""

    key: str = ""  # its path in the file, dotted: "trainer.precision", "data.init_args.num_workers", "bf16"
    line: int = 0  # 1-based
    text: str = ""  # the line as written, stripped: "precision: 32", "num_workers = 4", '"amp": true,'
    section: bool = False  # a key that opens a block of keys ("trainer:", "[train]"), not a value


@dataclass(frozen=True)
class ConfigFile(JsonMixin):
    """A YAML, TOML or JSON file the script read while it ran (its configuration), with its keys' lines."""

    path: str = ""  # as opened: absolute
    format: str = ""  # yaml | toml | json
    entries: tuple[ConfigEntry, ...] = ()  # in the file's order (at most probe/configfiles.MAX_ENTRIES)


@dataclass(frozen=True)
class Settings(JsonMixin):
    """The run's settings, read from live objects after warm-up and at the end."""

    dataloaders: tuple[LoaderSettings, ...] = ()
    optimizers: tuple[OptimizerSettings, ...] = ()
    schedulers: tuple[SchedulerSettings, ...] = ()
    models: tuple[ModelInfo, ...] = ()
    zero_grad_calls: int = 0
    zero_grad_set_to_none_false: int = 0  # calls that asked for set_to_none=False
    autocast_forwards: int = 0  # training forwards run under autocast
    autocast_device: Optional[str] = None
    autocast_dtype: Optional[str] = None
    grad_scaler_used: bool = False
    compiled: bool = False  # torch.compile'd module or function called
    compile_graphs: Optional[int] = None
    compile_recompiles: Optional[int] = None
    cudnn_enabled: Optional[bool] = None
    cudnn_benchmark: Optional[bool] = None
    cudnn_deterministic: Optional[bool] = None
    deterministic_algorithms: Optional[bool] = None
    float32_matmul_precision: Optional[str] = None  # highest, high, medium
    cuda_matmul_allow_tf32: Optional[bool] = None
    cudnn_allow_tf32: Optional[bool] = None
    anomaly_detection: Optional[bool] = None
    autograd_profiler_enabled: Optional[bool] = None  # the user's own profiler/emit_nvtx
    cuda_launch_blocking: Optional[bool] = None
    sync_debug_mode: Optional[int] = None
    data_parallel: bool = False
    distributed: bool = False
    world_size: Optional[int] = None
    cuda_available: bool = False
    cuda_used: bool = False  # any parameter or batch on a CUDA device
    devices_used: tuple[str, ...] = ()
    torch_threads: Optional[int] = None
    backward_calls: int = 0
    optimizer_steps: int = 0
    step_boundary: str = "none"  # how steps were delimited: fetch | optimizer | backward | batch | loader | none
    grad_accumulation: Optional[float] = None  # backward calls per optimizer step
    # Module forwards run inside backward (activation checkpointing recomputing), counted while the probe hooks
    # every module (the first steps; then only the top-level models): a sign, not a count per step.
    recomputed_forwards: int = 0
    # The script's own line of its first torch.utils.checkpoint.checkpoint(...) call (fast-DiT's DiT.forward):
    # where a block is checkpointed, the line to change to turn it off. None when a library made the calls.
    checkpoint_called_at: Optional[str] = None
    env_flags: dict[str, str] = field(default_factory=dict)  # relevant environment variables
    framework: Optional[FrameworkInfo] = None  # None: no step seen yet, or a record made before it was read
    loop_at: Optional[str] = None  # "file.py:line" of the user's training loop (its for/while statement)
    loop_function: Optional[str] = None  # "file.py:first": the function holding that loop (its first line)
    cli_flags: tuple[CliFlag, ...] = ()  # the script's command-line options (argparse)
    batch_variables: tuple[BatchVariable, ...] = ()  # its variables that held a batch size, with their lines
    padding: Optional[Padding] = None  # the training batches' padding, where they carry an attention mask
    attention_call_at: Optional[str] = None  # the script's scaled_dot_product_attention(...) call: "file.py:line"
    cuda_autocast_at: Optional[str] = None  # the script's autocast made for CUDA (off on a CPU run): "file.py:line"
    # nn.MultiheadAttention's training calls that made their weights (need_weights=True, its default): how many,
    # their seconds in all, and the script's line that made the first (probe/instrument.py)
    attention_weights_calls: int = 0
    attention_weights_seconds: float = 0.0
    attention_weights_at: Optional[str] = None
    unoptimized_grads: Optional[UnoptimizedGrads] = None  # weights with gradients that no optimizer holds
    # The configuration files the script read (Hydra, yacs, LightningCLI, a YAML of its own): where a knob is set
    config_files: tuple[ConfigFile, ...] = ()


@dataclass(frozen=True)
class Step(JsonMixin):
    """One training step: one iteration of the training loop, from one training batch fetch to the
    next, with every optimizer step inside it (``boundary`` says how its end was found: ``fetch``,
    ``optimizer`` when the loop fetches no batches, ``backward`` when it has no optimizer either,
    ``batch`` for an inference loop; see ``probe/clock.py``; ``trace`` for a step read from a
    trace's ProfilerStep#N range, see ``trace/summarize.py``).

    The phases are CPU-side wall time: on a GPU, CUDA work is asynchronous, so
    ``gpu_*`` fields (from CUDA events, when available) give device-side time.
    ``other = duration - (data_wait + h2d + forward + backward + optimizer + eval + debug)``.
    """

    index: int = 0
    start: float = 0.0
    duration: float = 0.0
    data_wait: float = 0.0
    h2d: float = 0.0
    forward: float = 0.0
    backward: float = 0.0
    optimizer: float = 0.0
    zero_grad: float = 0.0  # part of other; zero_grad is usually tiny
    eval: float = 0.0  # eval-mode / no-grad forwards (validation)
    other: float = 0.0
    probe: float = 0.0  # time spent inside trainprobe's own hooks, already excluded
    phase: str = PHASE_WARMUP
    boundary: str = "optimizer"  # fetch | optimizer | backward | batch | loader (probe/clock.py)
    batches: int = 0
    samples: Optional[int] = None  # batch size seen (first dim of the batch)
    epoch_start: bool = False  # a DataLoader iterator was created in this step
    validation: bool = False  # eval forwards took most of the step
    gpu_busy: Optional[float] = None  # device-side seconds, when CUDA events are available
    # Debugging aids timed inside the step (anomaly mode's stack capture), taken out of the
    # phase they ran in (forward): host work that switching the aid off removes.
    debug: float = 0.0
    updates: int = 0  # optimizer steps in this step (2 in a GAN's, 0 in a micro-batch's)
    lr: Optional[float] = None  # learning rate the step's first optimizer step used (None: unread)
    # Inside data_wait (None: not measured, an older record or a trace): the loop thread's CPU seconds
    # (making the batch itself with num_workers=0, or taking it from a worker), and its seconds
    # receiving batches from workers (unpickling them, mapping their shared memory): the handoff.
    data_wait_cpu: Optional[float] = None
    data_receive: Optional[float] = None


@dataclass(frozen=True)
class MicroBatch(JsonMixin):
    """One micro-batch of a step that accumulates gradients: from the step's start, or the end of the
    last micro-batch's backward at the next batch fetched or training forward begun, to the next such
    point or the step's end (probe/clock.py). Recorded for a run's first 16 such steps only: a run that makes too
    few optimizer steps to judge from (three updates of 32 micro-batches each) is judged from them
    (facts/window.py). The phases are those of :class:`Step`, in seconds; ``other`` is what no hook timed."""

    step: int = 0  # the Step.index it is part of
    start: float = 0.0
    duration: float = 0.0
    data_wait: float = 0.0
    h2d: float = 0.0
    forward: float = 0.0
    backward: float = 0.0
    optimizer: float = 0.0  # the update: in a step's last micro-batch only
    zero_grad: float = 0.0
    eval: float = 0.0
    debug: float = 0.0
    other: float = 0.0


# A micro-batch's times, in field order (all but ``step`` and ``start``): the fields it shares with Step, which
# the clock emits in this order and a resampled step sums (engine/stability.py).
MICRO_PARTS: tuple[str, ...] = tuple(f.name for f in fields(MicroBatch) if f.name not in ("step", "start"))


@dataclass(frozen=True)
class OpStat(JsonMixin):
    name: str = ""
    calls: int = 0
    self_cpu: float = 0.0  # seconds
    cpu_total: float = 0.0
    self_cuda: float = 0.0
    cuda_total: float = 0.0
    input_shapes: Optional[str] = None


@dataclass(frozen=True)
class OpTime(JsonMixin):
    """One row of the op table: an op (or, on a GPU, the kernels it launched) per step."""

    name: str = ""  # the aten op (a convolution's row holds the ops under it); a kernel's name where no op is known
    kind: str = "other"  # trace/kinds.py: matmul, conv, attention, elementwise, normalization, reduction, copy, ...
    calls_per_step: float = 0.0
    time_per_step: float = 0.0  # seconds: self CPU time on a CPU, the kernels' device time on a GPU
    flops_per_step: Optional[float] = None  # from the recorded shapes (trace/flops.py); None without them
    bytes_per_step: Optional[float] = None  # inputs + outputs once, by dtype size; None without shapes


@dataclass(frozen=True)
class ModuleTime(JsonMixin):
    """A direct child of the model (named by its attribute) and the work it caused, per step."""

    name: str = ""
    forward_per_step: Optional[float] = None  # seconds of work (as OpTime.time_per_step) inside its forward
    backward_per_step: Optional[float] = None  # its backward nodes' work; None when the trace has no autograd
    # sequence numbers to match them with


@dataclass(frozen=True)
class ProfilerSummary(JsonMixin):
    """Figures from the torch.profiler window (what torch.utils.bottleneck gave)."""

    availability: Availability = field(default_factory=Availability)
    activities: tuple[str, ...] = ()  # CPU, CUDA
    steps: int = 0
    wall: float = 0.0  # seconds covered by the window
    cpu_total: float = 0.0  # sum of self CPU time of all ops
    cuda_total: float = 0.0  # sum of self CUDA time of all kernels
    ops_per_step: Optional[float] = None  # aten ops of the loop (DataLoader work in the main process left out)
    loop_op_time_per_step: Optional[float] = None  # their self CPU seconds per step
    toplevel_ops_per_step: Optional[float] = None  # ops called from Python directly
    mean_toplevel_op_time: Optional[float] = None  # seconds of CPU per top-level op
    launches_per_step: Optional[float] = None  # CUDA kernel launches
    kernels_per_step: Optional[float] = None
    mean_kernel_time: Optional[float] = None
    h2d_copies_per_step: Optional[float] = None
    h2d_bytes_per_step: Optional[float] = None
    h2d_pageable_bytes_per_step: Optional[float] = None
    d2h_copies_per_step: Optional[float] = None
    syncs_per_step: Optional[float] = None  # item/cpu/tolist/synchronize, outside optimizer.step()
    tensor_creations_per_step: Optional[float] = None  # new tensors made from Python (torch.tensor, zeros...)
    sync_calls: dict[str, float] = field(default_factory=dict)  # name -> per step
    # Self CPU seconds per step of the aten ops in each step phase (data_wait, forward, backward,
    # optimizer, ... and "other": the loop's own code), from the phases' ranges in the trace.
    op_time_by_phase: dict[str, float] = field(default_factory=dict)
    cheap_op_time: Optional[float] = None  # median self time of ops that do no arithmetic: an op's fixed cost
    small_op_time_share: Optional[float] = None  # of the loop's op time, the share in ops under 10 µs each
    # The same ops (the loop's, DataLoader work left out) by step phase, per step: their count, and the self CPU
    # seconds of those under 10 µs. A batch made in the loop by thousands of tiny tensor writes is the loop's,
    # not the model's cost of calling ops. Empty in records made before it was kept.
    ops_by_phase: dict[str, float] = field(default_factory=dict)
    small_op_time_by_phase: dict[str, float] = field(default_factory=dict)
    sync_time_per_step: Optional[float] = None
    gpu_idle_share: Optional[float] = None  # share of the window with no kernel running
    matmul_conv_share: Optional[float] = None  # of device (or CPU) op time
    fp32_matmul_conv_share: Optional[float] = None
    conv_ops: int = 0
    peak_memory_allocated: Optional[int] = None
    peak_memory_reserved: Optional[int] = None
    top_cpu_ops: tuple[OpStat, ...] = ()
    top_cuda_ops: tuple[OpStat, ...] = ()  # from a trace: the kernels by total device time, calls = launches
    trace_path: Optional[str] = None
    processing_time: float = 0.0  # seconds spent summarizing, after the window
    # The device's timeline, per step, from its kernels, copies and memsets (trace/device.py says
    # how each is defined). Seconds per step; empty or None without a GPU in the profile.
    source: str = "live"  # live (the probe's window) | trace (a trace file read by `trainprobe trace`)
    gpu_busy_per_step: Optional[float] = None
    step_gpu_busy: dict[str, float] = field(default_factory=dict)  # step index -> its GPU-busy seconds
    # The kernel time a step launches: each kernel counted in the step whose host code launched it, the
    # median over the steps that launched any. Unlike the busy time inside each step's window, it does not
    # depend on how far the host ran ahead of the GPU when the window opened or closed.
    kernel_work_per_step: Optional[float] = None
    gpu_idle_by_cause: dict[str, float] = field(default_factory=dict)  # data, sync, host, launch
    device_time_by_class: dict[str, float] = field(default_factory=dict)  # compute, copy, communication (exposed)
    gpu_idle_at_step_boundaries: Optional[float] = None  # idle before a step's first work and after its last
    kernel_time_by_class: dict[str, float] = field(default_factory=dict)  # compute, communication, memory
    communication_overlap_share: Optional[float] = None  # of communication kernel time, hidden under compute
    median_kernel_time: Optional[float] = None
    tensor_core_share: Optional[float] = None  # of matmul/conv kernel time, on tensor cores
    half_precision_share: Optional[float] = None  # of matmul/conv kernel time, in fp16/bf16
    blocking_copies_per_step: Optional[float] = None  # copies the host waited for (its call lasted the copy)
    sync_sites: dict[str, float] = field(default_factory=dict)  # where the loop's syncs come from -> per step
    # Where the compute time goes, by kind (trace/kinds.py, trace/work.py): seconds per step of the loop's
    # aten ops' self CPU time (on a CPU) or of the kernels' device time (on a GPU; communication left
    # out). A trace without steps (steps == 0) gets these over the whole trace instead.
    op_kinds: dict[str, float] = field(default_factory=dict)
    memory_bound_share: Optional[float] = None  # of op_kinds' time, the share in memory-bound kinds
    model_memory_bound_share: Optional[float] = None  # the same outside the optimizer's step: what compiling the model fuses
    op_table: tuple[OpTime, ...] = ()  # the top ops by that time
    shape_flops_per_step: Optional[float] = None  # matmul/conv/attention FLOPs from recorded shapes; None without
    optimizer_kind: Optional[str] = None  # for-loop | foreach | fused, from the ops under Optimizer.step
    module_times: tuple[ModuleTime, ...] = ()  # the model's direct children (live runs mark their forwards)
    # scaled_dot_product_attention's math path (its unfused fallback) on a CPU: its ops' time per step, forward
    # (inclusive), and of it the matrix products' (trace/work.py); None where it did not run.
    attention_math_time_per_step: Optional[float] = None
    attention_math_products_per_step: Optional[float] = None


@dataclass(frozen=True)
class FuncStat(JsonMixin):
    file: str = ""
    line: int = 0
    function: str = ""
    calls: int = 0
    self_time: float = 0.0  # seconds
    cumulative: float = 0.0
    user_code: bool = False  # in the script's folder, not in a library
    category: Optional[str] = None  # decode, transform, io, collate, torch, python


@dataclass(frozen=True)
class TimePart(JsonMixin):
    """A part of the main process's profiled time (cProfile window) in one context (the loop's own code,
    or the batch-making in the main process): a call the loop made and everything under it, so that
    time is summed by caller (probe/callgraph.py)."""

    label: str = ""  # "set_postfix() (tqdm)", "Tensor.item()", "add_noise()", "progress bar (lightning)"
    function: str = ""  # as cProfile names it
    file: str = ""
    line: int = 0  # the function's first line
    caller: str = ""  # the user's function that made the call, "name() file.py:line" ("" when not known)
    owner: str = ""  # user, framework, library, torch, python, loop (the loop's own lines)
    area: str = ""  # a framework's part (progress bar, logging, hooks, the fit loop) or a library's package
    seconds: float = 0.0  # in the profiled window
    op_seconds: float = 0.0  # of which inside torch's C functions (ops, syncs)
    calls: int = 0


@dataclass(frozen=True)
class CreationSite(JsonMixin):
    """Where the main process made new tensors from Python (torch.tensor, torch.randn...), per call site."""

    function: str = ""  # torch.randn
    at: str = ""  # "file.py:line" of the call when found in the source, else of the calling function
    caller: str = ""  # the calling function's name
    calls: int = 0  # in the profiled window
    context: str = "loop"  # loop (the loop's own code), model (inside a forward), data (making a batch)
    on_device: Optional[bool] = None  # every such call there passes device= (None: source not read)
    seconds: Optional[float] = None  # their own time in the window (on the CPU the numbers are made there);
    # None in records made before it was kept


@dataclass(frozen=True)
class Hotspots(JsonMixin):
    """cProfile over a window of steps: the main process and the DataLoader workers."""

    availability: Availability = field(default_factory=Availability)
    window: float = 0.0  # seconds profiled in the main process
    steps: int = 0
    main: tuple[FuncStat, ...] = ()
    workers: tuple[FuncStat, ...] = ()
    worker_window: float = 0.0  # summed seconds profiled over all workers
    worker_categories: dict[str, float] = field(default_factory=dict)  # share of worker time
    main_categories: dict[str, float] = field(default_factory=dict)  # share of the main process's profiled time
    # The main process's window by step phase (data, model, backward, optimizer, h2d, loop, probe; seconds),
    # and its loop and data parts summed by caller, largest first (probe/callgraph.py).
    phase_seconds: dict[str, float] = field(default_factory=dict)
    loop_parts: tuple[TimePart, ...] = ()
    data_parts: tuple[TimePart, ...] = ()
    creations: tuple[CreationSite, ...] = ()


@dataclass(frozen=True)
class WorkerStats(JsonMixin):
    """What one DataLoader worker spent fetching. The main process (worker_id -1) does not time
    its own fetches: with num_workers=0 the loop's data wait is the fetch."""

    pid: int = 0
    loader_id: int = 0
    worker_id: int = -1
    batches: int = 0
    fetch: float = 0.0  # seconds in fetch (getitem + collate)
    getitem: float = 0.0
    collate: float = 0.0
    first_fetch_at: Optional[float] = None
    last_fetch_at: Optional[float] = None


@dataclass(frozen=True)
class HostSamples(JsonMixin):
    t: tuple[float, ...] = ()
    cpu_percent: tuple[float, ...] = ()  # whole machine, 0-100
    per_core: tuple[tuple[float, ...], ...] = ()  # one tuple per sample
    iowait_percent: tuple[float, ...] = ()
    steal_percent: tuple[float, ...] = ()
    mem_used: tuple[int, ...] = ()
    mem_available: tuple[int, ...] = ()
    swap_used: tuple[int, ...] = ()
    disk_read_bps: tuple[float, ...] = ()  # bytes/s over the last interval
    cpu_pressure_percent: tuple[float, ...] = ()  # time some task waited for a CPU (Linux PSI), 0-100


@dataclass(frozen=True)
class ProcessSeries(JsonMixin):
    pid: int = 0
    role: str = "main"  # main, worker, resource_tracker, other
    cmdline: str = ""
    t: tuple[float, ...] = ()
    cpu_percent: tuple[float, ...] = ()  # 100 = one core
    rss: tuple[int, ...] = ()
    read_bytes: tuple[int, ...] = ()  # cumulative, storage reads only
    read_chars: tuple[int, ...] = ()  # cumulative, page cache hits included
    threads: tuple[int, ...] = ()
    cpu_wait: tuple[float, ...] = ()  # cumulative seconds its threads waited for a CPU (run queue)
    cpu_user: tuple[float, ...] = ()  # cumulative CPU seconds in its own code (/proc/PID/stat utime)
    cpu_system: tuple[float, ...] = ()  # cumulative CPU seconds in the kernel on its behalf (stime)
    minor_faults: tuple[int, ...] = ()  # cumulative minor page faults: pages mapped in on first touch (minflt)


@dataclass(frozen=True)
class GpuSeries(JsonMixin):
    index: int = 0
    t: tuple[float, ...] = ()
    sm_util: tuple[Optional[float], ...] = ()  # percent
    mem_util: tuple[Optional[float], ...] = ()
    power_w: tuple[Optional[float], ...] = ()
    power_limit_w: Optional[float] = None
    sm_clock_mhz: tuple[Optional[float], ...] = ()
    sm_clock_max_mhz: Optional[float] = None
    mem_used: tuple[Optional[int], ...] = ()
    mem_total: Optional[int] = None
    temperature_c: tuple[Optional[float], ...] = ()
    throttle_reasons: tuple[Optional[int], ...] = ()  # NVML bitmask
    pcie_rx_bps: tuple[Optional[float], ...] = ()
    pcie_tx_bps: tuple[Optional[float], ...] = ()
    process_mem_used: tuple[Optional[int], ...] = ()  # the run's own processes


@dataclass(frozen=True)
class Samples(JsonMixin):
    interval: float = 0.1
    host: HostSamples = field(default_factory=HostSamples)
    host_availability: Availability = field(default_factory=Availability)
    processes: tuple[ProcessSeries, ...] = ()
    gpus: tuple[GpuSeries, ...] = ()
    gpu_availability: Availability = field(default_factory=Availability)
    sampler_cpu_time: float = 0.0  # seconds of CPU the samplers used


# The clock's words when --max-seconds stops a run (probe/clock.py), in the outcome's reason: Outcome.time_limited.
TIME_LIMIT_REASON = "reached --max-seconds"


@dataclass(frozen=True)
class Outcome(JsonMixin):
    """How the run ended."""

    # completed: the script ended by itself with status 0
    # stopped: trainprobe stopped it cleanly after its window
    # failed: the script exited with a non-zero status (exception, sys.exit(n))
    # interrupted: Ctrl-C
    # killed: a signal killed it (SIGKILL, often the OOM killer)
    # timeout: it ran past --timeout and trainprobe ended it
    # not_started: the script could not be started (missing file...)
    # probe_error: trainprobe itself failed; the record keeps what was measured
    status: str = "not_started"
    exit_code: Optional[int] = None
    signal: Optional[str] = None
    exception_type: Optional[str] = None
    exception_message: Optional[str] = None
    traceback: Optional[str] = None  # the script's own frames only
    reason: str = ""  # one plain sentence
    duration: float = 0.0  # seconds from launch to end
    startup: Optional[float] = None  # seconds from launch to the first step
    oom: bool = False
    # stopped early: what never ran after the stop (a notebook's later cells, a script's later training;
    # probe/unrun.py), also the end of ``reason``; None when nothing, or nothing that trains, was left
    left_unrun: Optional[str] = None

    @property
    def time_limited(self) -> bool:
        """trainprobe stopped the run at --max-seconds, before its windows were all done (the clock's own words in
        ``reason``: probe/clock.py asks for that stop only while a window is still to run)."""
        return self.status == "stopped" and TIME_LIMIT_REASON in (self.reason or "")


@dataclass(frozen=True)
class RankSummary(JsonMixin):
    """One rank of a job as versions before the job record saved it (schema 2), read only: today a job is a
    record_job.JobRecord, and job/build.saved_job reads such a run.json again from its ranks' folders."""

    rank: Optional[int] = None
    files: tuple[str, ...] = ()
    steps: int = 0
    step_time: Optional[float] = None  # mean step, seconds
    gpu_idle_share: Optional[float] = None
    exposed_communication_share: Optional[float] = None
    data_wait_share: Optional[float] = None
    breakdown: dict[str, float] = field(default_factory=dict)  # the rank's device step: fact name -> share
    verdict: str = "unknown"
    headline: str = ""
    slowest: bool = False
    why_slowest: Optional[str] = None  # for the slowest rank: what it spends more time on than the others
    # A job trainprobe ran (torchrun): the rank's own figures, per steady step, in seconds.
    status: Optional[str] = None  # the rank's outcome: completed, stopped, failed, killed...
    error: Optional[str] = None  # the rank's exception ("ValueError: ..."), when it failed
    node: Optional[str] = None  # the folder (one per node) its record came from
    phases: dict[str, float] = field(default_factory=dict)  # median seconds per step: data_wait, forward, ...
    collective_time: Optional[float] = None  # seconds per step inside collectives (all-reduce, broadcast, barrier)
    collective_wait: Optional[float] = None  # of which waiting for the slowest rank to arrive
    collective_transfer: Optional[float] = None  # of which the transfer itself (the last arrival's time in it)
    batches: Optional[int] = None  # training batches it fetched


@dataclass(frozen=True)
class DdpSettings(JsonMixin):
    """A DistributedDataParallel wrapper's settings, read from the object, and what they cost."""

    bucket_cap_mb: Optional[float] = None
    gradient_as_bucket_view: Optional[bool] = None
    static_graph: Optional[bool] = None
    find_unused_parameters: Optional[bool] = None
    broadcast_buffers: Optional[bool] = None
    unused_parameter_bytes: Optional[int] = None  # bytes of parameters that got no gradient (DDP's own count; None: unread)
    post_forward_time: Optional[float] = None  # seconds per forward in DDP's post-forward (the unused-parameter search)
    parameters: Optional[int] = None


@dataclass(frozen=True)
class JobSummary(JsonMixin):
    """A job of several ranks as versions before the job record saved it (schema 2), read only (see
    RankSummary): what job/build.saved_job needs to find the ranks' folders."""

    launcher: str = "torchrun"
    command_line: str = ""
    world_size: Optional[int] = None
    nodes: tuple[str, ...] = ()  # the folders (one per node) the ranks' records came from
    backend: Optional[str] = None  # gloo, nccl
    ddp: Optional[DdpSettings] = None
    straggler: Optional[int] = None  # the rank the others wait for
    straggler_cause: Optional[str] = None  # the step phase it spends more time in than the others
    straggler_excess: Optional[float] = None  # seconds per step of that excess
    straggler_why: Optional[str] = None
    step_time: Optional[float] = None  # median step across ranks, seconds
    collective_time: Optional[float] = None  # mean over ranks, seconds per step
    collective_wait: Optional[float] = None  # seconds per step the others wait for the straggler (without one: mean over ranks)
    collective_transfer: Optional[float] = None
    rank0_extra: Optional[float] = None  # seconds per step rank 0 spends in its loop's own code beyond the others
    failed_rank: Optional[int] = None
    failed_error: Optional[str] = None
    distributed_sampler: Optional[bool] = None  # every rank's training loader used a DistributedSampler
    batches_per_rank: tuple[int, ...] = ()


@dataclass(frozen=True)
class RunRecord(JsonMixin):
    schema_version: int = SCHEMA_VERSION
    invocation: Invocation = field(default_factory=Invocation)
    environment: Environment = field(default_factory=Environment)
    settings: Settings = field(default_factory=Settings)
    steps: tuple[Step, ...] = ()
    profiler: ProfilerSummary = field(default_factory=ProfilerSummary)
    hotspots: Hotspots = field(default_factory=Hotspots)
    workers: tuple[WorkerStats, ...] = ()
    samples: Samples = field(default_factory=Samples)
    outcome: Outcome = field(default_factory=Outcome)
    notes: tuple[str, ...] = ()  # what the probe wants the reader to know (noise, fallbacks)
    ranks: tuple[RankSummary, ...] = ()  # schema 2 jobs only (read, never written): see record_job.py
    job: Optional[JobSummary] = None  # schema 2 jobs only (read, never written): see record_job.py
    compute: Compute = field(default_factory=Compute)  # FLOPs of a step and the hardware's ceiling (record_compute.py)
    memory: Memory = field(default_factory=Memory)  # what fills memory, and what fits (record_memory.py)
    micro_batches: tuple[MicroBatch, ...] = ()  # of the first steps that accumulate gradients (MicroBatch)
