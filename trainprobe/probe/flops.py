"""FLOP formulas for the counting step: torch's own, plus the ops its table leaves out.

The count follows the convention every MFU figure uses (PaLM's appendix B, Lightning's and
Composer's MFU, torch.utils.flop_counter): the multiply-adds of the matrix products
(matmul, convolution, attention, the gate matrices of recurrent layers), 2 FLOPs each, in
forward and backward. Element-wise ops, norms and the optimizer's update are not FLOPs in
this sense: they are memory-bound, and their cost is counted as bytes moved.

``torch.utils.flop_counter`` has no formula for two ops a CPU run meets all the time:
``nn.LSTM``/``nn.GRU`` run as ``mkldnn_rnn_layer`` and scaled-dot-product attention as
``_scaled_dot_product_flash_attention_for_cpu``; on a GPU, cuDNN's RNN is ``_cudnn_rnn``.
Each is the same products as its reference definition, so they are counted from their
shapes here. An op that is neither in torch's table nor here and that does arithmetic
(``UNCOUNTED_HINTS``) is listed as uncounted, never guessed.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import torch

__all__ = ["formula_for", "does_arithmetic", "flops_of"]

_aten = torch.ops.aten

try:  # the formulas torch keeps for its own FlopCounterMode
    from torch.utils import flop_counter as _fc

    _TORCH_REGISTRY: dict = dict(getattr(_fc, "flop_registry", {}))
    _sdpa = getattr(_fc, "sdpa_flop_count", None)
    _sdpa_backward = getattr(_fc, "sdpa_backward_flop_count", None)
except Exception:  # pylint: disable=broad-except  # an unusual torch build: nothing counted
    _TORCH_REGISTRY, _sdpa, _sdpa_backward = {}, None, None

# Names of ops that do arithmetic worth counting; one of them without a formula is listed as
# uncounted (a custom kernel, an RNN or attention variant torch's table does not know).
UNCOUNTED_HINTS = ("mm", "conv", "rnn", "lstm", "gru", "attention", "einsum", "linalg", "gemm",
                   "matmul", "linear", "fft", "cholesky", "solve", "_transformer", "multi_head")


def _shape(value: Any) -> Any:
    return tuple(value.shape) if isinstance(value, torch.Tensor) else value


def _gates(weight_ih: Any, hidden_size: int) -> int:
    """Gate matrices stacked in an RNN's input weight: 4 for an LSTM, 3 for a GRU, 1 for an RNN."""
    return max(1, int(weight_ih.shape[0]) // max(1, int(hidden_size)))


def _rnn_time_batch(inp: Any, batch_first: bool, batch_sizes: Any) -> int:
    """Time steps times batch: the rows each gate product is computed for."""
    if batch_sizes is not None and len(batch_sizes):  # a packed sequence: one row per element
        return int(sum(int(b) for b in batch_sizes))
    shape = tuple(inp.shape)
    return int(shape[0]) * (int(shape[1]) if len(shape) == 3 else 1)


def _mkldnn_rnn_layer(args: tuple, kwargs: dict, out: Any) -> int:
    # (input, weight0 [G*H, I], weight1 [G*H, H], ..., hx, cx, reverse, batch_sizes, mode, hidden_size,
    #  num_layers, has_biases, bidirectional, batch_first, train): one layer, one direction.
    inp, w_ih, w_hh = args[0], args[1], args[2]
    rows = _rnn_time_batch(inp, bool(args[14]) if len(args) > 14 else False, args[8] if len(args) > 8 else None)
    return 2 * rows * int(w_ih.shape[0]) * (int(w_ih.shape[1]) + int(w_hh.shape[1]))


def _mkldnn_rnn_layer_backward(args: tuple, kwargs: dict, out: Any) -> int:
    # Gradients of the input and of both weights: twice the forward's products.
    inp, w_ih, w_hh = args[0], args[1], args[2]
    rows = _rnn_time_batch(inp, bool(args[21]) if len(args) > 21 else False, args[20] if len(args) > 20 else None)
    return 4 * rows * int(w_ih.shape[0]) * (int(w_ih.shape[1]) + int(w_hh.shape[1]))


def _cudnn_rnn_flops(args: tuple, backward: bool) -> int:
    # (input, weight list, weight_stride0, weight_buf, hx, cx, mode, hidden_size, proj_size, num_layers,
    #  batch_first, dropout, train, bidirectional, batch_sizes, ...) forward;
    # backward has output, grad_output, grad_hy, grad_cy after cx, so mode is args[10].
    inp, weights = args[0], args[1]
    offset = 4 if backward else 0
    hidden, layers = int(args[7 + offset]), int(args[9 + offset])
    bidirectional = bool(args[13 + offset])
    batch_first = bool(args[10 + offset])
    batch_sizes = args[14 + offset]
    rows = _rnn_time_batch(inp, batch_first, batch_sizes)
    dirs = 2 if bidirectional else 1
    per = len(weights) // max(1, layers * dirs)  # weight_ih, weight_hh (and biases) per layer and direction
    total = 0
    for k in range(layers * dirs):
        w_ih, w_hh = weights[k * per], weights[k * per + 1]
        total += 2 * rows * int(w_ih.shape[0]) * (int(w_ih.shape[1]) + int(w_hh.shape[1]))
    return 2 * total if backward else total


def _cpu_flash(args: tuple, kwargs: dict, out: Any) -> int:
    return int(_sdpa(_shape(args[0]), _shape(args[1]), _shape(args[2]))) if _sdpa else 0


def _cpu_flash_backward(args: tuple, kwargs: dict, out: Any) -> int:
    if not _sdpa_backward:
        return 0
    return int(_sdpa_backward(_shape(args[0]), _shape(args[1]), _shape(args[2]), _shape(args[3])))


_Formula = Callable[[tuple, dict, Any], int]
_EXTRA: dict[Any, _Formula] = {}


def _add(name: str, formula: _Formula) -> None:
    packet = getattr(_aten, name, None)
    if packet is not None:
        _EXTRA[packet] = formula


_add("mkldnn_rnn_layer", _mkldnn_rnn_layer)
_add("mkldnn_rnn_layer_backward", _mkldnn_rnn_layer_backward)
_add("_scaled_dot_product_flash_attention_for_cpu", _cpu_flash)
_add("_scaled_dot_product_flash_attention_for_cpu_backward", _cpu_flash_backward)
_add("_cudnn_rnn", lambda args, kwargs, out: _cudnn_rnn_flops(args, backward=False))
_add("_cudnn_rnn_backward", lambda args, kwargs, out: _cudnn_rnn_flops(args, backward=True))


def formula_for(packet: Any) -> Optional[Callable[[tuple, dict, Any], int]]:
    """The FLOP formula of an op (its overload packet), or None when there is none."""
    extra = _EXTRA.get(packet)
    if extra is not None:
        return extra
    registered = _TORCH_REGISTRY.get(packet)
    if registered is None:
        return None
    # torch's formulas take the tensors' shapes (shape_wrapper) and the output as ``out_val``.
    return lambda args, kwargs, out: int(registered(*args, **kwargs, out_val=out))


def known(packet: Any) -> bool:
    return packet in _EXTRA or packet in _TORCH_REGISTRY


def does_arithmetic(name: str) -> bool:
    """Whether an op without a formula is one that should have one (listed as uncounted)."""
    short = name.split("::")[-1].split(".")[-1].lower()
    return any(hint in short for hint in UNCOUNTED_HINTS)


def flops_of(packet: Any, args: tuple, kwargs: dict, out: Any) -> Optional[int]:
    """FLOPs of one call, None when the op has no formula; a formula that fails counts as None."""
    formula = formula_for(packet)
    if formula is None:
        return None
    try:
        return formula(args, kwargs, out)
    except Exception:  # pylint: disable=broad-except  # an odd call (symbolic shapes...): not counted
        return None
