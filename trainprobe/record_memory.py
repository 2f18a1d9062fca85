"""The run record's memory part: what fills memory in a training step, and how much there is.

Part of the run record (``RunRecord.memory``; sizes are bytes). Two sources, both measured:

* the counting step (``probe/census.py``) follows every tensor storage the step makes or holds,
  on the CPU and a GPU alike: the parameters, gradients and optimizer state are counted from the
  tensors the model and optimizer hold; what the step allocates on top, and when, from the
  storages its ops create and free. Not the process's RSS, which also holds Python, libraries
  and the allocator's free lists;
* on a GPU, the CUDA caching allocator's statistics, read and reset at every steady step
  (``DeviceMemorySteps``): peak allocated and reserved (the gap is the allocator's cache and
  fragmentation) and what stays allocated between steps (its growth is a leak).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .jsonio import JsonMixin
from .record_base import Availability

__all__ = ["BlockMemory", "MemoryCensus", "DeviceMemorySteps", "Memory"]


@dataclass(frozen=True)
class BlockMemory(JsonMixin):
    """A run of repeated blocks in the model (a ModuleList or Sequential of layers of one type): what
    their forwards keep for backward, the candidates for activation checkpointing."""

    container: str = ""  # the container's name in the model: "transformer.h"
    block_type: str = ""  # the blocks' class: "Block"
    count: int = 0
    saved: int = 0  # bytes the blocks' forwards keep alive for backward, all blocks together
    inputs: int = 0  # bytes of the blocks' inputs: what checkpointing them would still keep


@dataclass(frozen=True)
class MemoryCensus(JsonMixin):
    """The counted step's memory, from the storages its tensors live in (bytes)."""

    availability: Availability = field(default_factory=Availability)
    device: Optional[str] = None  # cpu | cuda: where the model's parameters are
    steps: int = 0  # steps followed
    samples: Optional[int] = None  # samples per counted step
    parameters: Optional[int] = None
    parameters_by_dtype: dict[str, int] = field(default_factory=dict)
    buffers: Optional[int] = None  # the model's buffers (batch norm's running statistics...)
    gradients: Optional[int] = None  # the parameters' .grad when the optimizer steps
    optimizer_state: Optional[int] = None  # the tensors the optimizers keep (Adam: two per parameter)
    at_step_start: Optional[int] = None  # followed bytes alive when a step begins: what persists between steps
    step_peak: Optional[int] = None  # followed bytes alive at the step's peak
    peak_phase: Optional[str] = None  # the step phase the peak came in: forward, backward, optimizer...
    activation_peak: Optional[int] = None  # the peak outside the optimizer's update: what grows with the batch
    saved_activations: Optional[int] = None  # bytes the forward kept for backward, when backward began
    batch: Optional[int] = None  # bytes of the batch the loop fetched
    retained_per_step: Optional[int] = None  # bytes made in a step and still alive a step later (not grads, state)
    retained_sites: dict[str, int] = field(default_factory=dict)  # "file.py:line" -> those bytes, where they were made
    retained_callers: dict[str, int] = field(default_factory=dict)  # the user's line that called into torch to make them
    retained_phases: dict[str, int] = field(default_factory=dict)  # step phase they were made in -> bytes
    retained_storages: Optional[int] = None  # how many storages (one kept tensor, or a whole graph's)
    # Of what outlived the counted steps, bytes freed during the step after them: held for one step only
    # (a loader's next batch, fetched one ahead), not growth and not in retained_per_step. None: not checked.
    held_one_step: Optional[int] = None
    # Of what outlived the counted steps, bytes the first counted step kept while the second left nothing
    # like it behind: made once and kept (a framework's buffer made late, a cache filled once), not growth
    # every step and not in retained_per_step. None: not checked.
    kept_once: Optional[int] = None
    blocks: tuple[BlockMemory, ...] = ()
    input_shape: Optional[str] = None  # the counted step's first training input: "16x128"
    input_elements: Optional[int] = None
    # This process's memory when the count began, as the kernel counts it for each kind of limit: resident
    # (RAM, a cgroup), data segment (ulimit -d) and address space (ulimit -v). Less the tensors followed then,
    # what the process needs besides its tensors (Python, libraries, the allocators' caches).
    resident_at_start: Optional[int] = None
    data_at_start: Optional[int] = None
    address_space_at_start: Optional[int] = None


@dataclass(frozen=True)
class DeviceMemorySteps(JsonMixin):
    """The CUDA allocator's figures per steady step (columns, one entry per step)."""

    step: tuple[int, ...] = ()
    allocated_peak: tuple[int, ...] = ()  # torch.cuda.max_memory_allocated over the step (reset at its start)
    reserved_peak: tuple[int, ...] = ()  # torch.cuda.max_memory_reserved over the step
    allocated_end: tuple[int, ...] = ()  # torch.cuda.memory_allocated when the step ended


@dataclass(frozen=True)
class Memory(JsonMixin):
    census: MemoryCensus = field(default_factory=MemoryCensus)
    device_steps: DeviceMemorySteps = field(default_factory=DeviceMemorySteps)
    limit: Optional[int] = None  # bytes the run may use: the GPU's memory, else the cgroup's or the machine's
    limit_source: Optional[str] = None  # "GPU memory", "cgroup memory.max", "RAM"...
    free_at_start: Optional[int] = None  # of it, free when the run started (other programs' use left out)
    failed_request: Optional[int] = None  # bytes the allocation that ran out of memory asked for (from its error)
    # The largest first input a training forward saw (elements), streamed as it grows: the longest batch of a
    # variable-length run, often the one that ran out of memory.
    largest_input_shape: Optional[str] = None
    largest_input_elements: Optional[int] = None
    largest_input_step: Optional[int] = None  # the step it came in
