"""What kind of work an op or a kernel does: compute-bound or memory-bound, and which.

One table for the CPU's aten ops and one for the GPU's kernel names. A kernel is put to the kind of
the aten op that launched it where the trace links them (the summarizer does that); its name is the
fallback, for kernels launched outside any op the table knows (custom ops such as vLLM's, CUDA
graphs, Triton kernels). The kernel names were read in the real traces under tests/data/traces/
(V100, A100, H100 and B200: cuBLAS, cuBLASLt's nvjet, CUTLASS, cuDNN, flash attention, ATen's own).

Kinds: compute-bound **matmul**, **conv**, **attention** (what tensor cores and a roofline's flat
part are about); memory-bound **elementwise**, **normalization** (norms and softmax: a few passes
over the data), **reduction**, **copy** (copies, concatenations, layout changes), **indexing**
(gathers, scatters, embeddings); **other** (views, allocations, syncs and anything unknown).
Communication kernels keep their own class (classify.is_communication) and are none of these.
"""

from __future__ import annotations

import re
from typing import Optional

from .classify import is_communication

__all__ = ["KINDS", "COMPUTE_BOUND", "MEMORY_BOUND", "COMMUNICATION", "op_kind", "kernel_kind", "memory_bound_share"]

KINDS = ("matmul", "conv", "attention", "elementwise", "normalization", "reduction", "copy", "indexing", "other")
COMPUTE_BOUND = frozenset({"matmul", "conv", "attention"})
MEMORY_BOUND = frozenset({"elementwise", "normalization", "reduction", "copy", "indexing"})
COMMUNICATION = "communication"  # a kernel's class, not a kind: left out of the kinds' time

# aten op names, without "aten::" and without a trailing "_" (in place) where noted.
_MATMUL = frozenset({
    "mm", "addmm", "bmm", "baddbmm", "addbmm", "matmul", "linear", "mv", "addmv", "dot", "vdot", "outer", "ger",
    "addr", "einsum", "bilinear", "tensordot", "_addmm_activation", "_int_mm", "_scaled_mm", "_weight_int8pack_mm",
    "_weight_int4pack_mm", "mkldnn_linear", "_mkl_linear", "linear_backward", "_grouped_mm", "_scaled_grouped_mm",
})
_RNN = re.compile(r"(^|_)(lstm|gru|rnn)")
_NORMALIZATION = re.compile(r"(layer|batch|group|instance|rms)_norm|softmax|local_response_norm|_weight_norm")
_REDUCTION = frozenset({
    "sum", "mean", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "prod", "norm", "linalg_vector_norm",
    "frobenius_norm", "var", "std", "var_mean", "std_mean", "all", "any", "logsumexp", "cumsum", "cumprod", "topk",
    "sort", "argsort", "median", "nanmedian", "kthvalue", "mode", "count_nonzero", "nansum", "nanmean", "_foreach_norm",
    "nll_loss", "nll_loss_forward", "nll_loss2d_forward", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy_loss", "kl_div", "cosine_similarity",
    "_cdist_forward", "cdist", "histc", "bincount", "dist", "trace", "equal", "allclose", "isclose",
})
_COPY = frozenset({
    "copy", "_copy_from", "_copy_from_and_resize", "_to_copy", "to", "clone", "contiguous", "cat", "_cat", "stack",
    "hstack", "vstack", "dstack", "repeat", "tile", "flip", "roll", "pad", "constant_pad_nd", "reflection_pad1d",
    "reflection_pad2d", "reflection_pad3d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "_pin_memory", "pin_memory", "lift_fresh_copy", "_to_dense", "to_dense", "repeat_interleave", "tril", "triu",
    "_unsafe_view_copy", "narrow_copy", "_fused_dropout", "clone_", "to_mkldnn", "_nested_tensor_from_mask",
    "reflection_pad2d_backward", "constant_pad_nd_backward", "split_with_sizes_copy", "unbind_copy", "im2col", "col2im",
})
_INDEXING = re.compile(r"^_?(index|gather|scatter|embedding|take|masked_select|masked_scatter|nonzero|unique|"
                       r"nll_loss\w*_backward|"
                       r"_unsafe_index|unsafe_index|put|one_hot|searchsorted|bucketize|_embedding_bag|embedding_bag|"
                       r"select_backward|slice_backward|select_scatter|slice_scatter|diagonal_scatter|"
                       r"_unsafe_masked_index)")
_ELEMENTWISE = frozenset({
    "add", "sub", "rsub", "mul", "div", "true_divide", "floor_divide", "neg", "abs", "sign", "sgn", "exp", "exp2",
    "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt", "rsqrt", "square", "reciprocal", "sin", "cos", "tan",
    "sinh", "cosh", "asin", "acos", "atan", "atan2", "erf", "erfc", "erfinv", "floor", "ceil", "round", "trunc",
    "frac", "remainder", "fmod", "clamp", "clamp_min", "clamp_max", "clip", "where", "masked_fill", "fill", "zero",
    "zeros_like", "ones_like", "full_like", "lerp", "addcmul", "addcdiv", "maximum", "minimum", "fmax", "fmin",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and",
    "bitwise_or", "bitwise_not", "bitwise_xor", "isnan", "isinf", "isfinite", "nan_to_num", "relu", "relu6", "gelu",
    "silu", "mish", "sigmoid", "tanh", "hardtanh", "hardsigmoid", "hardswish", "leaky_relu", "elu", "selu", "celu",
    "softplus", "softshrink", "hardshrink", "threshold", "prelu", "_prelu_kernel", "glu", "logit", "xlogy",
    "dropout", "native_dropout", "feature_dropout", "alpha_dropout", "bernoulli", "uniform", "normal", "random",
    "rand", "randn", "randint", "rand_like", "randn_like", "exponential", "geometric", "cauchy", "log_normal",
    "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "upsample_bilinear2d", "upsample_bicubic2d",
    "upsample_linear1d", "upsample_trilinear3d", "_upsample_nearest_exact2d", "_upsample_bilinear2d_aa",
    "grid_sampler_2d", "grid_sampler", "affine_grid_generator", "max_pool2d", "max_pool2d_with_indices",
    "max_pool1d", "max_pool3d", "max_pool3d_with_indices", "avg_pool2d", "avg_pool1d", "avg_pool3d",
    "adaptive_avg_pool2d", "_adaptive_avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool3d",
    "_adaptive_avg_pool3d", "adaptive_max_pool2d", "adaptive_max_pool1d", "mse_loss_backward", "l1_loss_backward",
    "smooth_l1_loss_backward", "huber_loss_backward", "binary_cross_entropy_backward", "cumsum_backward",
    "sigmoid_backward", "tanh_backward", "threshold_backward", "gelu_backward", "silu_backward", "mish_backward",
    "hardtanh_backward", "hardswish_backward", "hardsigmoid_backward", "leaky_relu_backward", "elu_backward",
    "softplus_backward", "native_dropout_backward", "glu_backward", "prelu_backward", "_prelu_kernel_backward",
    "max_pool2d_with_indices_backward", "avg_pool2d_backward", "_adaptive_avg_pool2d_backward",
    "adaptive_max_pool2d_backward", "upsample_nearest2d_backward", "upsample_bilinear2d_backward",
    "logit_backward", "pow_backward", "_masked_scale", "masked_fill_backward", "abs_backward", "sgn_backward",
    "_amp_foreach_non_finite_check_and_unscale", "_amp_update_scale", "polar", "complex", "real", "imag",
    "cumulative_trapezoid", "heaviside", "copysign", "hypot", "_fused_moving_avg_obs_fq_helper",
})
# Optimizer updates: _foreach_* (add, mul, addcdiv, lerp, sqrt...) and _fused_adam/_fused_adamw/_fused_sgd.
_ELEMENTWISE_PREFIX = ("_foreach_", "_fused_adam", "_fused_sgd", "_fused_adagrad", "_fused_rmsprop")
_OTHER = frozenset({
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "t", "transpose", "permute", "expand",
    "expand_as", "unsqueeze", "squeeze", "select", "slice", "narrow", "split", "split_with_sizes", "chunk",
    "unbind", "flatten", "unflatten", "unfold", "view_as", "detach", "alias", "lift", "lift_fresh", "empty",
    "empty_like", "empty_strided", "new_empty", "new_empty_strided", "resize", "set", "item",
    "_local_scalar_dense", "is_nonzero", "result_type", "resolve_conj", "resolve_neg", "numpy_T", "movedim",
    "zeros", "ones", "full", "arange", "linspace", "eye", "scalar_tensor", "tensor_split", "diagonal", "real",
    "record_stream", "_has_compatible_shallow_copy_type", "size", "stride", "is_same_size", "contiguous_format",
    "_nested_tensor_size", "numel", "dim", "align_as", "broadcast_to", "broadcast_tensors", "as_strided_",
    "squeeze_", "unsqueeze_", "t_", "transpose_", "detach_", "requires_grad_", "retain_grad", "_conj", "conj",
    "_neg_view", "view_as_real", "view_as_complex", "swapaxes", "swapdims", "mT", "mH", "adjoint", "matrix_H",
})


def _strip(name: str) -> str:
    return name[6:] if name.startswith("aten::") else name


def op_kind(name: str) -> Optional[str]:
    """The kind of an aten op ("aten::addmm" -> "matmul"); "other" for an aten op outside the table
    (views, allocations and the rest), None for an op that is not an aten op (a custom op, a
    record_function range): its kernels then go by their names."""
    if not name.startswith("aten::"):
        return None
    base = _strip(name)
    plain = base[:-1] if base.endswith("_") and not base.endswith("__") else base  # add_ -> add
    if base in _MATMUL or plain in _MATMUL:
        return "matmul"
    if "conv" in base and "convert" not in base:
        return "conv"
    if _RNN.search(base):  # a recurrent layer's op: its time is its gates' products
        return "matmul"
    if "attention" in base:
        return "attention"
    if _NORMALIZATION.search(base):
        return "normalization"
    if plain in _OTHER:
        return "other"
    if plain in _COPY or base in _COPY:
        return "copy"
    if _INDEXING.match(base):
        return "indexing"
    if plain in _REDUCTION or base in _REDUCTION:
        return "reduction"
    if plain in _ELEMENTWISE or base.startswith(_ELEMENTWISE_PREFIX):
        return "elementwise"
    if plain.endswith("_backward") and plain[:-len("_backward")] in _ELEMENTWISE:
        return "elementwise"
    return "other"


# Kernel names, checked in this order (a flash kernel is also a CUTLASS kernel; a cuDNN conv may be an
# implicit GEMM; "splitKreduce" is a GEMM's last pass, not a reduction).
_K_ATTENTION = ("flash_fwd", "flash_bwd", "flash_attn", "pytorch_flash", "fmha", "attention", "attn", "sdpa", "_mha", "mha_")
_K_CONV = ("fprop", "dgrad", "wgrad", "winograd", "implicit_convolve", "scudnn", "conv2d", "conv3d", "conv1d",
           "convolution", "convolve", "depthwise", "dconv")
_K_MATMUL = ("gemm", "gemv", "cutlass::kernel", "cutlass_", "xmma", "nvjet", "cublas", "bmm_", "matmul", "hmma", "_mma", "splitkreduce",
             "884", "1688", "16816", "wmma")
_K_NORMALIZATION = ("layer_norm", "layernorm", "gammabetabackward", "batch_norm", "batchnorm", "bn_fw", "bn_bw", "group_norm",
                    "groupnorm", "rms_norm", "rmsnorm", "instance_norm", "softmax", "welford")
_K_REDUCTION = ("reduce", "reduction", "argmax", "argmin", "topk", "radixsort", "sort_", "scan_", "cub::device",
                "triton_red_", "triton_per_", "nllcriterion")
_K_INDEXING = ("index", "gather", "scatter", "embedding", "take_", "masked_")
_K_COPY = ("copy", "memcpy", "nchwtonhwc", "nhwctonchw", "transpose", "permute", "cat_", "catarray", "pad_",
           "reshape_and_cache")
_K_ELEMENTWISE = ("elementwise", "vectorized", "unrolled", "triton_poi_", "fill", "rotary", "gelu", "relu", "silu",
                  "sigmoid", "tanh", "dropout", "adam", "sgd", "multi_tensor_apply", "foreach", "activation",
                  "quant", "pointwise", "_add_", "_mul_", "max_pool", "avg_pool", "scalepackedtensor")


def kernel_kind(name: str) -> str:
    """The kind of a GPU kernel from its name alone; "communication" for collectives."""
    if is_communication(name):
        return COMMUNICATION
    lowered = name.lower()
    if "rotary" in lowered:  # a rotary *embedding* is elementwise arithmetic, not a lookup
        return "elementwise"
    if "cache" in lowered and "copy" not in lowered:  # writes into a KV cache (vLLM's *_cache_flash_kernel)
        return "copy"
    if any(tag in lowered for tag in _K_ATTENTION):
        return "attention"
    if any(tag in lowered.replace("typeconvert", "").replace("convert", "") for tag in _K_CONV):
        return "conv"
    if any(tag in lowered for tag in _K_MATMUL):
        return "matmul"
    for kind, tags in (("normalization", _K_NORMALIZATION), ("reduction", _K_REDUCTION),
                       ("indexing", _K_INDEXING), ("copy", _K_COPY), ("elementwise", _K_ELEMENTWISE)):
        if any(tag in lowered for tag in tags):
            return kind
    return "other"


def memory_bound_share(times: dict[str, float]) -> Optional[float]:
    """Of the kinds' total time, the share in memory-bound kinds (None when there is no time)."""
    total = sum(v for k, v in times.items() if k != COMMUNICATION)
    if total <= 0:
        return None
    return sum(v for k, v in times.items() if k in MEMORY_BOUND) / total
