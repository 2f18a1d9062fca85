"""FLOPs and bytes of the matmul, convolution and attention ops of a trace recorded with shapes.

A trace made with ``record_shapes=True`` gives each op its inputs' sizes (``Input Dims``) and dtypes
(``Input type``); a convolution's stride, padding and dilation are in ``Concrete Inputs``. The reader
keeps these for the ops named in ``SHAPE_OPS`` only. FLOPs follow torch.utils.flop_counter's
conventions: 2*M*N*K for a product (one multiply and one add per term), a convolution as the product
it amounts to (bias left out), attention as its two products (forward) or five (backward), with no
discount for causal masks. Bytes are what the op reads and writes once: its tensor inputs and its
outputs, by dtype size. Each product is counted once (``counted_in``): a composite op (aten::linear,
aten::matmul, scaled_dot_product_attention) only where nothing under it is counted; a convolution at
aten::convolution (or convolution_backward), whose arguments are the same on every backend, and
nothing under it.
"""

from __future__ import annotations

import json
from math import prod
from typing import Optional, Sequence

__all__ = ["SHAPE_OPS", "CONV_OPS", "Shapes", "op_flops", "counted_in"]

_MATMUL_OPS = frozenset({"aten::mm", "aten::addmm", "aten::_addmm_activation", "aten::bmm", "aten::baddbmm",
                         "aten::addbmm", "aten::matmul", "aten::linear"})
CONV_OPS = frozenset({"aten::convolution", "aten::_convolution", "aten::convolution_backward"})
# q, k, v laid out (batch, seq, heads, dim) in the unpacked kernels' ops; (batch, heads, seq, dim) in the rest.
_BSHD = ("aten::_flash_attention_", "aten::_efficient_attention_")
_ATTENTION_OPS = frozenset({
    "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention",
    "aten::_scaled_dot_product_flash_attention_for_cpu", "aten::_flash_attention_forward",
    "aten::_efficient_attention_forward", "aten::_scaled_dot_product_flash_attention_backward",
    "aten::_scaled_dot_product_efficient_attention_backward", "aten::_scaled_dot_product_cudnn_attention_backward",
    "aten::_scaled_dot_product_flash_attention_for_cpu_backward", "aten::_flash_attention_backward",
    "aten::_efficient_attention_backward",
})
SHAPE_OPS = _MATMUL_OPS | CONV_OPS | _ATTENTION_OPS  # the ops whose shapes the reader keeps

# ``Input type`` strings as the profiler writes them -> bytes per element.
_DTYPE_BYTES = {
    "float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, "int": 4, "short int": 2,
    "signed char": 1, "unsigned char": 1, "bool": 1, "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1,
    "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2fnuz": 1, "c10::Float8_e8m0fnu": 1, "c10::Float4_e2m1fn_x2": 1,
    "c10::complex<float>": 8, "c10::complex<double>": 16, "c10::complex<c10::Half>": 4,
}

# One op's shapes as the reader keeps them: (Input Dims, Input type, Concrete Inputs or None).
Shapes = tuple


def _dims(shapes: Shapes, i: int) -> list[int]:
    dims = shapes[0]
    return list(dims[i]) if i < len(dims) and isinstance(dims[i], list) else []


def _size(shapes: Shapes, i: int) -> Optional[int]:
    types = shapes[1] or ()
    return _DTYPE_BYTES.get(types[i]) if i < len(types) else None


def _bytes(shapes: Shapes, inputs: Sequence[int], outputs: Sequence[tuple[list[int], int]]) -> Optional[float]:
    """Inputs by position; outputs as (dims, the input position whose dtype they have)."""
    total = 0
    for i in inputs:
        dims = _dims(shapes, i)
        if not dims:
            continue
        size = _size(shapes, i)
        if size is None:
            return None
        total += prod(dims) * size
    for dims, like in outputs:
        size = _size(shapes, like)
        if size is None:
            return None
        total += prod(dims) * size
    return float(total)


def _concrete(shapes: Shapes, i: int):
    values = shapes[2] or ()
    text = values[i] if i < len(values) else ""
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text.replace("True", "true").replace("False", "false"))
    except ValueError:
        return None


def _matmul(name: str, shapes: Shapes) -> Optional[tuple[float, Optional[float]]]:
    short = name[6:]
    if short == "mm":
        (m, k), (_, n) = _dims(shapes, 0), _dims(shapes, 1)
        return 2.0 * m * n * k, _bytes(shapes, (0, 1), [([m, n], 0)])
    if short in ("addmm", "_addmm_activation"):
        (m, k), (_, n) = _dims(shapes, 1), _dims(shapes, 2)
        return 2.0 * m * n * k, _bytes(shapes, (0, 1, 2), [([m, n], 1)])
    if short == "bmm":
        (b, m, k), (_, _, n) = _dims(shapes, 0), _dims(shapes, 1)
        return 2.0 * b * m * n * k, _bytes(shapes, (0, 1), [([b, m, n], 0)])
    if short in ("baddbmm", "addbmm"):
        (b, m, k), (_, _, n) = _dims(shapes, 1), _dims(shapes, 2)
        out = [b, m, n] if short == "baddbmm" else [m, n]
        return 2.0 * b * m * n * k, _bytes(shapes, (0, 1, 2), [(out, 1)])
    if short == "linear":
        x, w = _dims(shapes, 0), _dims(shapes, 1)
        n, k = w
        rows = prod(x[:-1])
        return 2.0 * rows * n * k, _bytes(shapes, (0, 1, 2), [(x[:-1] + [n], 0)])
    if short == "matmul":
        a, b = _dims(shapes, 0), _dims(shapes, 1)
        if not a or not b:
            return None
        m, k = (1, a[0]) if len(a) == 1 else (a[-2], a[-1])
        n = 1 if len(b) == 1 else b[-1]
        batch_a, batch_b = a[:-2], b[:-2]
        width = max(len(batch_a), len(batch_b))
        batch_a = [1] * (width - len(batch_a)) + batch_a
        batch_b = [1] * (width - len(batch_b)) + batch_b
        batch = [max(x, y) for x, y in zip(batch_a, batch_b)]
        out = batch + ([m] if len(a) > 1 else []) + ([n] if len(b) > 1 else [])
        return 2.0 * prod(batch) * m * n * k, _bytes(shapes, (0, 1), [(out, 0)])
    return None


def _conv_out(x: list[int], w: list[int], stride, padding, dilation, transposed: bool, output_padding,
              groups: int) -> list[int]:
    spatial = []
    for i in range(len(x) - 2):
        k = w[2 + i]
        if transposed:
            spatial.append((x[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + output_padding[i] + 1)
        else:
            spatial.append((x[2 + i] + 2 * padding[i] - dilation[i] * (k - 1) - 1) // stride[i] + 1)
    channels = w[1] * groups if transposed else w[0]
    return [x[0], channels] + spatial


def _per_dim(value, count: int) -> Optional[list[int]]:
    if isinstance(value, int):
        return [value] * count
    if isinstance(value, list) and value:
        return value * count if len(value) == 1 else value
    return None


def _conv(name: str, shapes: Shapes) -> Optional[tuple[float, Optional[float]]]:
    backward = name == "aten::convolution_backward"
    first = 1 if backward else 0  # convolution_backward(grad_output, input, weight, bias_sizes, stride, ...)
    x, w = _dims(shapes, first), _dims(shapes, first + 1)
    if len(x) < 3 or len(w) != len(x):
        return None
    at = first + 3
    rank = len(x) - 2
    stride, padding, dilation = (_per_dim(_concrete(shapes, at + j), rank) for j in range(3))
    transposed = bool(_concrete(shapes, at + 3))
    output_padding = _per_dim(_concrete(shapes, at + 4), rank) or [0] * rank
    groups = _concrete(shapes, at + 5)
    if backward:
        out = _dims(shapes, 0)
    elif stride and padding and dilation and isinstance(groups, int):
        out = _conv_out(x, w, stride, padding, dilation, transposed, output_padding, groups)
    else:
        return None
    per_pass = 2.0 * x[0] * prod(w) * prod((x if transposed else out)[2:])
    if not backward:
        has_bias = bool(_dims(shapes, 2))
        return per_pass, _bytes(shapes, (0, 1, 2) if has_bias else (0, 1), [(out, 0)])
    mask = _concrete(shapes, at + 6)
    mask = mask if isinstance(mask, list) and len(mask) == 3 else [True, True, True]
    outputs = [(x, 1)] if mask[0] else []
    if mask[1]:
        outputs.append((w, 2))
    if mask[2]:
        outputs.append(([w[1] * groups if transposed and isinstance(groups, int) else w[0]], 2))
    return per_pass * (int(bool(mask[0])) + int(bool(mask[1]))), _bytes(shapes, (0, 1, 2), outputs)


def _attention(name: str, shapes: Shapes) -> Optional[tuple[float, Optional[float]]]:
    backward = name.endswith("_backward")
    first = 1 if backward else 0  # the backward ops take grad_out first, then query, key, value
    q, k, v = (_dims(shapes, first + j) for j in range(3))
    if len(q) != 4 or len(k) != 4 or len(v) != 4:
        return None
    if name.startswith(_BSHD):
        (b, sq, h, d), sk, dv = q, k[1], v[3]
    else:
        (b, h, sq, d), sk, dv = q, k[2], v[3]
    out = q[:3] + [dv]
    if not backward:
        return 2.0 * b * h * sq * sk * (d + dv), _bytes(shapes, (0, 1, 2), [(out, 0)])
    flops = 2.0 * b * h * sq * sk * (3 * d + 2 * dv)
    return flops, _bytes(shapes, (0, 1, 2, 3), [(q, 1), (k, 2), (v, 3)])


def op_flops(name: str, shapes: Shapes) -> Optional[tuple[float, Optional[float]]]:
    """(FLOPs, bytes or None) of one call of a SHAPE_OPS op, None when its shapes do not fit."""
    try:
        if name in CONV_OPS:
            return _conv(name, shapes)
        if name in _ATTENTION_OPS:
            return _attention(name, shapes)
        if name in _MATMUL_OPS:
            return _matmul(name, shapes)
    except (TypeError, ValueError, IndexError):
        return None
    return None


def counted_in(name: str, has_shape_op_below: bool, under_conv: bool) -> bool:
    """Whether a SHAPE_OPS op is where its FLOPs are counted: a convolution at the outermost conv op, a
    product at the innermost op that does it, nothing under a counted convolution."""
    if under_conv:
        return False
    if name in CONV_OPS:
        return True
    return not has_shape_op_below
