"""The run record's compute part: the work a step does, counted, and the hardware's ceiling.

Part of the run record (``RunRecord.compute``; see :mod:`trainprobe.record` for the units'
conventions). The FLOPs come from the counting step (``probe/census.py``: one or two steps run
under a dispatch mode after warm-up, outside every measured window), the ceiling from the
datasheet table (GPUs, ``readiness/peaks.py``) or from a short matmul benchmark run on the spot
after the script ended (CPUs, ``probe/peak.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .jsonio import JsonMixin
from .record_base import Availability

__all__ = ["OpCount", "FlopCount", "ComputePeak", "Compute"]


@dataclass(frozen=True)
class OpCount(JsonMixin):
    """One aten op of the counted step, per step (averaged over the counted steps)."""

    name: str = ""  # as the profiler spells it: "aten::mm"
    calls: float = 0.0
    flops: Optional[float] = None  # None: the op has no FLOP formula (element-wise, copies...)
    bytes: float = 0.0  # tensor bytes it read and wrote (inputs, and the outputs it wrote)
    dtype: Optional[str] = None  # its first floating-point input's dtype


@dataclass(frozen=True)
class FlopCount(JsonMixin):
    """FLOPs of one training step, counted by running it under the counter (matrix products only:
    matmul, convolution, attention, recurrent gates; 2 FLOPs per multiply-add, forward and
    backward), with the bytes every op moved."""

    availability: Availability = field(default_factory=Availability)
    steps: int = 0  # steps counted
    first_step: Optional[int] = None  # index of the first counted step
    samples: Optional[int] = None  # samples per counted step (the batch it saw)
    flops: Optional[float] = None  # per step
    by_phase: dict[str, float] = field(default_factory=dict)  # forward, backward, optimizer, eval, other
    by_dtype: dict[str, float] = field(default_factory=dict)  # the products' FLOPs by the dtype they ran in
    ops: tuple[OpCount, ...] = ()  # the ops with the most FLOPs or bytes, per step
    uncounted: tuple[str, ...] = ()  # ops that do arithmetic but have no formula: listed, never guessed
    duration: Optional[float] = None  # seconds the counted steps took, the counter's own cost included
    step_time: Optional[float] = None  # their mean duration


@dataclass(frozen=True)
class ComputePeak(JsonMixin):
    """What the hardware can do: FLOP/s by dtype and memory bandwidth, measured or from a datasheet."""

    availability: Availability = field(default_factory=Availability)
    source: Optional[str] = None  # "measured" (a matmul benchmark on the spot) | "datasheet"
    device: str = ""  # the CPU's model or the GPU's name
    flops_per_s: dict[str, float] = field(default_factory=dict)  # dtype (fp32, tf32, bf16, fp16) -> FLOP/s
    memory_bytes_per_s: Optional[float] = None  # a measured copy, or the datasheet's bandwidth
    threads: Optional[int] = None  # torch threads the measurement used (CPU)
    started: Optional[float] = None  # seconds since launch (the record's time base), when measured
    duration: Optional[float] = None  # seconds the measurement took
    reference: Optional[str] = None  # where a datasheet figure comes from
    matmul_size: Optional[int] = None  # n of the n×n×n products measured


@dataclass(frozen=True)
class Compute(JsonMixin):
    flops: FlopCount = field(default_factory=FlopCount)
    peak: ComputePeak = field(default_factory=ComputePeak)
