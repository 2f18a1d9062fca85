"""Who called whom on each host thread: a trace has no parent links, only times.

On one thread, an event that starts inside another and ends inside it was called by it (a range
that starts inside another and outlasts it crossed it: it is not its child). Walking a
thread's events in start order with a stack gives each event's parent, its self time (its
duration less its children's) and what it inherits from its ancestors: being part of the
DataLoader's work, of the optimizer's, of a trainprobe phase range.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Optional

from .collect import CPU_KINDS, CpuThread
from .flops import CONV_OPS

__all__ = ["Nested", "nest"]

_LOADER = CPU_KINDS.index("loader")
_OPTIMIZER_PREFIXES = ("Optimizer.step", "Optimizer.zero_grad")
PHASE_PREFIX = "trainprobe::"  # the step's phases, as the live probe's clock marks them
MODULE_PREFIX = "trainprobe::module::"  # a model child's forward, as the probe marks it (not a phase)
BACKWARD_NODE = "autograd::engine::evaluate_function: "  # the autograd engine running one backward node
_SLACK = 0.01  # µs: exported timestamps are rounded; a child may end a hair after its parent

# Flag bits each event inherits from its ancestors (or sets itself).
UNDER_LOADER = 1
UNDER_OPTIMIZER = 2
PARENT_IS_ATEN = 4
UNDER_SYNC = 8  # inside a host-device sync (an item() whose runtime sync is its child)


@dataclass
class Nested:
    """Per event of one thread, in the thread's own order: parent index (-1: none), self time (µs),
    inherited flags, and the innermost phase range's name index (-1: none)."""

    parent: array
    self_time: array
    flags: array
    phase: array
    # Only where the trace has such ranges (else None): the innermost module range's name index, the
    # innermost backward node's event index, the outermost convolution op's event index (-1: none).
    module: Optional[array] = None
    backward_node: Optional[array] = None
    conv: Optional[array] = None


def nest(thread: CpuThread, names: list[str], sync_names: frozenset[str]) -> Nested:
    n = len(thread)
    ts, end, name, kind = thread.ts, thread.end, thread.name, thread.kind
    order = sorted(range(n), key=lambda i: (ts[i], -end[i]))
    parent = array("l", [-1]) * n
    self_time = array("d", [0.0]) * n
    flags = array("b", [0]) * n
    phase = array("l", [-1]) * n
    is_aten = [False] * len(names)
    is_optimizer = [False] * len(names)
    is_phase = [False] * len(names)
    is_sync = [False] * len(names)
    is_module = [False] * len(names)
    is_node = [False] * len(names)
    is_conv = [False] * len(names)
    for i, text in enumerate(names):
        is_aten[i] = text.startswith("aten::")
        is_optimizer[i] = text.startswith(_OPTIMIZER_PREFIXES)
        is_module[i] = text.startswith(MODULE_PREFIX)
        is_phase[i] = text.startswith(PHASE_PREFIX) and not is_module[i]
        is_sync[i] = text in sync_names
        is_node[i] = text.startswith(BACKWARD_NODE)
        is_conv[i] = text in CONV_OPS
    module = array("l", [-1]) * n if any(is_module) else None
    node = array("l", [-1]) * n if any(is_node) else None
    conv = array("l", [-1]) * n if any(is_conv) else None
    for i in range(n):
        self_time[i] = end[i] - ts[i]
    stack: list[int] = []
    for i in order:
        start = ts[i]
        while stack and end[stack[-1]] <= start + _SLACK:
            stack.pop()
        own = name[i]
        bits = 0
        if kind[i] == _LOADER:
            bits |= UNDER_LOADER
        if is_optimizer[own]:
            bits |= UNDER_OPTIMIZER
        current_phase = own if is_phase[own] else -1
        # The parent is the innermost open range that also ends after this event. Ranges can cross:
        # the probe calls prof.step() from the optimizer's post-step hook, so each ProfilerStep starts
        # inside an Optimizer.step range and outlasts it. Taken as that range's child, the whole next
        # step (the loop's .item() calls, its tensor creations) was filed as the optimizer's work.
        p = len(stack) - 1
        while p >= 0 and end[stack[p]] + _SLACK < end[i]:
            if is_module[own] and current_phase < 0 and is_phase[name[stack[p]]]:
                # A module range that outlives the phase it began in (traces from trainprobe versions that
                # closed a directly called child's range after its forward phase): its ops ran in that phase.
                current_phase = name[stack[p]]
            p -= 1
        if p >= 0:
            p = stack[p]
            parent[i] = p
            self_time[p] -= end[i] - start
            inherited = flags[p] & (UNDER_LOADER | UNDER_OPTIMIZER | UNDER_SYNC)
            if is_sync[name[p]]:
                inherited |= UNDER_SYNC
            bits |= inherited
            if is_aten[name[p]]:
                bits |= PARENT_IS_ATEN
            if current_phase < 0:
                current_phase = phase[p]
        flags[i] = bits
        phase[i] = current_phase
        if module is not None:
            module[i] = own if is_module[own] else (module[p] if p >= 0 else -1)
        if node is not None:
            node[i] = i if is_node[own] else (node[p] if p >= 0 else -1)
        if conv is not None:
            outer = conv[p] if p >= 0 else -1
            conv[i] = outer if outer >= 0 else (i if is_conv[own] else -1)
        stack.append(i)
    for i in range(n):
        if self_time[i] < 0:
            self_time[i] = 0.0
    return Nested(parent=parent, self_time=self_time, flags=flags, phase=phase, module=module,
                  backward_node=node, conv=conv)


def outermost_op(thread: CpuThread, nested: Nested, names: list[str], i: int) -> Optional[str]:
    """The op called from Python that event ``i`` is part of (its outermost aten ancestor)."""
    found = None
    while i >= 0:
        if names[thread.name[i]].startswith("aten::"):
            found = names[thread.name[i]]
        i = nested.parent[i]
    return found
