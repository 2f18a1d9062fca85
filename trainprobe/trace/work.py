"""Where the compute time of the steps goes: by kind, by op, by module, and the optimizer's kind.

The unit of work is, on a CPU, an aten op's self CPU time in the loop (the DataLoader's work in the
main process left out); on a GPU, a kernel's device time (collectives left out: they are not compute).
A kernel belongs to the op that launched it: its runtime call is matched by correlation and the
innermost op above that call is the launcher. Its kind is the launcher's (kinds.op_kind), or the
kernel's name's where the launcher is not an aten op the table knows. A convolution's row holds
everything under aten::convolution (the backend's op, its layout changes), so that its FLOPs and its
time are one row. Module times put a forward op to the innermost ``trainprobe::module::<name>`` range
above it, and a backward op to the module whose forward op has the autograd sequence number of the
backward node (``autograd::engine::evaluate_function: XBackward0``) it runs under.
"""

from __future__ import annotations

from math import isnan
from typing import Optional

from ..record import ModuleTime, OpTime
from .classify import is_communication
from .collect import CPU_KINDS, GPU_KINDS, NO_SHAPES, Collected, CpuThread
from .flops import CONV_OPS, SHAPE_OPS, counted_in
from .kinds import kernel_kind, memory_bound_share, op_kind
from .nesting import BACKWARD_NODE, MODULE_PREFIX, UNDER_LOADER, UNDER_OPTIMIZER, Nested

__all__ = ["work_split", "MATH_ATTENTION"]

_US = 1e-6
_TOP = 15
_OP, _RUNTIME = CPU_KINDS.index("op"), CPU_KINDS.index("runtime")
_KERNEL = GPU_KINDS.index("kernel")
_OPTIMIZER_STEP = "Optimizer.step"
# scaled_dot_product_attention's unfused fallback: the score tensor made whole, then softmax, mask and dropout on it.
# On a CPU it runs when the fused flash kernel cannot (dropout in training, some masks and dtypes).
MATH_ATTENTION = "aten::_scaled_dot_product_attention_math"


class _Rows:
    """Accumulates the op table and the kinds, and each module's forward and backward work."""

    def __init__(self) -> None:
        self.time: dict[str, float] = {}
        self.kinds: dict[str, dict[str, float]] = {}
        self.calls: dict[str, set] = {}
        self.launches: dict[str, int] = {}
        self.flops: dict[str, Optional[float]] = {}
        self.bytes: dict[str, Optional[float]] = {}
        self.forward: dict[str, float] = {}
        self.backward: dict[str, float] = {}
        self.model_kinds: dict[str, float] = {}  # the kinds outside the optimizer's step (what compiling the model fuses)
        # scaled_dot_product_attention's math path (the unfused fallback, CPU): its ops' time, and of it the matrix
        # products', which a fused kernel also does; the rest (the score tensor's softmax, mask, dropout) it skips.
        self.math_attention = 0.0
        self.math_attention_products = 0.0

    def add(self, row: str, kind: str, seconds: float, call, in_optimizer: bool = False) -> None:
        self.time[row] = self.time.get(row, 0.0) + seconds
        if not in_optimizer:
            self.model_kinds[kind] = self.model_kinds.get(kind, 0.0) + seconds
        by_kind = self.kinds.setdefault(row, {})
        by_kind[kind] = by_kind.get(kind, 0.0) + seconds
        if call is None:
            self.launches[row] = self.launches.get(row, 0) + 1
        else:
            self.calls.setdefault(row, set()).add(call)

    def op_kinds(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for by_kind in self.kinds.values():
            for kind, seconds in by_kind.items():
                out[kind] = out.get(kind, 0.0) + seconds
        return out

    def table(self, n: int, with_shapes: bool) -> tuple[OpTime, ...]:
        ranked = sorted(self.time.items(), key=lambda kv: kv[1], reverse=True)[:_TOP]
        out = []
        for row, seconds in ranked:
            kinds = self.kinds[row]
            calls = len(self.calls.get(row, ())) + self.launches.get(row, 0)
            flops = self.flops.get(row)
            nbytes = self.bytes.get(row)
            out.append(OpTime(name=row, kind=max(kinds, key=kinds.__getitem__), calls_per_step=calls / n,
                              time_per_step=seconds / n,
                              flops_per_step=flops / n if with_shapes and flops is not None else None,
                              bytes_per_step=nbytes / n if with_shapes and nbytes is not None else None))
        return tuple(out)


def _launcher(thread: CpuThread, nd: Nested, names: list[str], i: int) -> int:
    """The innermost op above event ``i`` (a runtime call): an ``ns::op`` event; -1 when none."""
    p = nd.parent[i]
    while p >= 0:
        if thread.kind[p] == _OP:
            text = names[thread.name[p]]
            if "::" in text and " " not in text:
                return p
        p = nd.parent[p]
    return -1


def _under(thread: CpuThread, nd: Nested, names: list[str], i: int, wanted: str) -> bool:
    """Whether event ``i`` runs inside an op named ``wanted``."""
    p = nd.parent[i]
    while p >= 0:
        if names[thread.name[p]] == wanted:
            return True
        p = nd.parent[p]
    return False


def _row_of(nd: Nested, i: int) -> int:
    """A convolution's ops are its row; anything else is its own."""
    if nd.conv is not None and nd.conv[i] >= 0:
        return nd.conv[i]
    return i


class _Modules:
    """Module attribution: forward by the innermost module range, backward by sequence number."""

    def __init__(self, collected: Collected, nested: dict) -> None:
        names = collected.names
        self.names = names
        self.active = any(nd.module is not None for nd in nested.values())
        self.by_seq: dict[int, int] = {}  # sequence number -> module range name index (forward ops)
        self.node_seq: dict[tuple, dict[int, int]] = {}  # thread -> backward node index -> its number
        self.has_seq = False
        if not self.active:
            return
        for key, thread in collected.threads.items():
            nd = nested[key]
            nodes: dict[int, int] = {}
            for i, seq in zip(thread.seq_at, thread.seq):
                self.has_seq = True
                if names[thread.name[i]].startswith(BACKWARD_NODE):
                    nodes[i] = seq
                elif nd.module is not None and nd.module[i] >= 0 and (nd.backward_node is None
                                                                       or nd.backward_node[i] < 0):
                    self.by_seq.setdefault(seq, nd.module[i])
            self.node_seq[key] = nodes

    def add(self, rows: _Rows, key: tuple, nd: Nested, i: int, seconds: float) -> None:
        if not self.active:
            return
        if nd.module is not None and nd.module[i] >= 0:
            name = self.names[nd.module[i]][len(MODULE_PREFIX):]
            rows.forward[name] = rows.forward.get(name, 0.0) + seconds
            return
        if nd.backward_node is None or nd.backward_node[i] < 0:
            return
        seq = self.node_seq.get(key, {}).get(nd.backward_node[i])
        module = self.by_seq.get(seq) if seq is not None else None
        if module is not None:
            name = self.names[module][len(MODULE_PREFIX):]
            rows.backward[name] = rows.backward.get(name, 0.0) + seconds

    def times(self, rows: _Rows, n: int) -> tuple[ModuleTime, ...]:
        if not self.active:
            return ()
        found = set(rows.forward) | set(rows.backward)
        out = [ModuleTime(name=name, forward_per_step=rows.forward.get(name, 0.0) / n,
                          backward_per_step=rows.backward.get(name, 0.0) / n if self.has_seq else None)
               for name in found]
        return tuple(sorted(out, key=lambda m: -((m.forward_per_step or 0.0) + (m.backward_per_step or 0.0))))


def _cpu_work(collected: Collected, nested: dict, lo: float, hi: float, rows: _Rows, modules: _Modules) -> None:
    names = collected.names
    # Only a trace that ran SDPA's math path has products under it: the others' matmuls need no walk up.
    math_attention = MATH_ATTENTION in names
    for key, thread in collected.threads.items():
        nd = nested[key]
        for i in range(len(thread)):
            if thread.kind[i] != _OP or not lo <= thread.ts[i] < hi or nd.flags[i] & UNDER_LOADER:
                continue
            name = names[thread.name[i]]
            if not name.startswith("aten::"):
                continue
            row = _row_of(nd, i)
            row_name = names[thread.name[row]]
            seconds = nd.self_time[i] * _US
            rows.add(row_name, op_kind(row_name) or "other", seconds, (key, row),
                     in_optimizer=bool(nd.flags[i] & UNDER_OPTIMIZER))
            modules.add(rows, key, nd, i, seconds)
            if name == MATH_ATTENTION:
                rows.math_attention += (thread.end[i] - thread.ts[i]) * _US
            elif math_attention and op_kind(name) == "matmul" and _under(thread, nd, names, i, MATH_ATTENTION):
                rows.math_attention_products += seconds


def _gpu_work(collected: Collected, nested: dict, device: int, lo: float, hi: float, rows: _Rows,
              modules: _Modules) -> None:
    gpu, names = collected.gpu, collected.names
    wanted = {gpu.correlation[i] for i in range(len(gpu)) if gpu.kind[i] == _KERNEL and gpu.device[i] == device}
    wanted.discard(-1)
    calls: dict[int, tuple] = {}
    for key, thread in collected.threads.items():
        for i in range(len(thread)):
            if thread.kind[i] == _RUNTIME and thread.correlation[i] in wanted:
                calls[thread.correlation[i]] = (key, i)
    for i in range(len(gpu)):
        if gpu.kind[i] != _KERNEL or gpu.device[i] != device or not lo <= gpu.ts[i] < hi:
            continue
        kernel = names[gpu.name[i]]
        if is_communication(kernel):
            continue
        seconds = (gpu.end[i] - gpu.ts[i]) * _US
        found = calls.get(gpu.correlation[i])
        op = -1
        in_optimizer = False
        if found is not None:
            key, r = found
            thread, nd = collected.threads[key], nested[key]
            op = _launcher(thread, nd, names, r)
            in_optimizer = bool(nd.flags[r] & UNDER_OPTIMIZER)
            modules.add(rows, key, nd, r, seconds)
        if op < 0:
            rows.add(kernel, kernel_kind(kernel), seconds, None, in_optimizer)
            continue
        row = _row_of(nd, op)
        row_name = names[thread.name[row]]
        kind = op_kind(row_name)
        if kind is None or kind == "other":
            kind = kernel_kind(kernel)
        rows.add(row_name, kind, seconds, (key, row), in_optimizer)


def _shape_flops(collected: Collected, nested: dict, lo: float, hi: float, rows: _Rows,
                 notes: list[str]) -> Optional[float]:
    """Counts each product once (flops.counted_in); adds FLOPs and bytes to the rows. None: no shapes,
    or an op that should be counted whose shapes do not say enough (a part is not a total)."""
    names = collected.names
    total = 0.0
    seen = False
    failed: dict[str, int] = {}
    for key, thread in collected.threads.items():
        if not any(f != NO_SHAPES for f in thread.flops):
            continue
        seen = True
        nd = nested[key]
        above: set[int] = set()  # shape ops with another shape op under them
        for i in thread.shape_at:
            p = nd.parent[i]
            while p >= 0:
                if names[thread.name[p]] in SHAPE_OPS:
                    above.add(p)
                p = nd.parent[p]
        for i, flops, nbytes in zip(thread.shape_at, thread.flops, thread.nbytes):
            if not lo <= thread.ts[i] < hi or nd.flags[i] & UNDER_LOADER:
                continue
            name = names[thread.name[i]]
            under_conv = nd.conv is not None and nd.conv[i] >= 0 and nd.conv[i] != i
            if not counted_in(name, i in above, under_conv):
                continue
            row = names[thread.name[_row_of(nd, i)]]
            if isnan(flops) or flops == NO_SHAPES:
                failed[name] = failed.get(name, 0) + 1
                rows.flops[row] = rows.bytes[row] = None
                continue
            total += flops
            if row in rows.flops and rows.flops[row] is None:
                continue
            rows.flops[row] = rows.flops.get(row, 0.0) + flops
            known = rows.bytes.get(row, 0.0)
            rows.bytes[row] = None if known is None or isnan(nbytes) else known + nbytes
    if failed:
        listed = ", ".join(f"{name} ({count})" for name, count in sorted(failed.items(), key=lambda kv: -kv[1]))
        why = (" (a convolution's stride and padding are recorded, as Concrete Inputs, only by newer torch; "
               "some ops may carry no shapes at all)" if any(name in CONV_OPS for name in failed)
               else " (some carry no shapes at all, or shapes that do not fit the op)")
        notes.append(f"The trace has shapes, but these ops' shapes do not say enough to count their FLOPs{why}: "
                     f"{listed}. The FLOPs from shapes are left unknown rather than given for part of the work.")
        return None
    return total if seen else None


def _optimizer_kind(collected: Collected, nested: dict, lo: float, hi: float) -> Optional[str]:
    """for-loop, foreach or fused, from the aten ops under the Optimizer.step ranges."""
    names = collected.names
    if not any(text.startswith(_OPTIMIZER_STEP) for text in names):
        return None
    found: set[str] = set()
    for key, thread in collected.threads.items():
        nd = nested[key]
        for i in range(len(thread)):
            if not nd.flags[i] & UNDER_OPTIMIZER or thread.kind[i] != _OP or not lo <= thread.ts[i] < hi:
                continue
            name = names[thread.name[i]]
            if not name.startswith("aten::"):
                continue
            p = nd.parent[i]
            while p >= 0 and not names[thread.name[p]].startswith("Optimizer."):
                p = nd.parent[p]
            if p >= 0 and names[thread.name[p]].startswith(_OPTIMIZER_STEP):
                found.add("fused" if name.startswith("aten::_fused_") else
                          "foreach" if name.startswith("aten::_foreach_") else "for-loop")
    for kind in ("fused", "foreach", "for-loop"):
        if kind in found:
            return kind
    return None


def work_split(collected: Collected, nested: dict[tuple, Nested], device: Optional[int], lo: float, hi: float,
               n: int) -> tuple[dict, list[str]]:
    """The ProfilerSummary fields of this module, over [lo, hi) divided by ``n`` steps, and notes."""
    rows = _Rows()
    modules = _Modules(collected, nested)
    if device is None:
        _cpu_work(collected, nested, lo, hi, rows, modules)
    else:
        _gpu_work(collected, nested, device, lo, hi, rows, modules)
    notes: list[str] = []
    flops = _shape_flops(collected, nested, lo, hi, rows, notes)
    kinds = {k: v / n for k, v in sorted(rows.op_kinds().items(), key=lambda kv: -kv[1])}
    model_kinds = {k: v / n for k, v in sorted(rows.model_kinds.items(), key=lambda kv: -kv[1])}
    if modules.active and not modules.has_seq:
        notes.append("The trace carries no autograd sequence numbers, so the backward's work cannot be put to "
                     "modules: module_times has the forward only.")
    return {
        "op_kinds": kinds,
        "memory_bound_share": memory_bound_share(kinds),
        "model_memory_bound_share": memory_bound_share(model_kinds),
        "op_table": rows.table(n, any(f != NO_SHAPES for t in collected.threads.values() for f in t.flops)),
        "shape_flops_per_step": flops / n if flops is not None else None,
        "optimizer_kind": _optimizer_kind(collected, nested, lo, hi),
        "module_times": modules.times(rows, n),
        "attention_math_time_per_step": rows.math_attention / n if device is None and rows.math_attention else None,
        "attention_math_products_per_step": (rows.math_attention_products / n
                                             if device is None and rows.math_attention else None),
    }, notes
