"""What a trace event is, from its name: kernel classes, precision, syncs, copies.

Every heuristic on names lives here, with the names it was checked against, so the
summarizer only counts. The kernel names were read in the real V100 and A100 traces
under tests/data/traces/ (cuDNN, cuBLAS, CUTLASS and NCCL kernels of 2021-2023 builds).
"""

from __future__ import annotations

__all__ = [
    "KERNEL_LAUNCHES", "SYNC_KIND", "SYNC_CALLS", "is_communication", "is_matmul_conv", "on_tensor_cores",
    "half_precision", "copy_direction", "copy_pageable",
]

# Runtime calls that launch a kernel (the host's cost of one).
KERNEL_LAUNCHES = frozenset({
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel",
})

# Where the host waits for the device, and the kind of sync each is. An .item() is
# aten::_local_scalar_dense; cudaMemcpy (not Async) blocks until the copy, and all work queued before
# it, is done.
SYNC_KIND = {
    "aten::_local_scalar_dense": "item/tolist",
    "cudaStreamSynchronize": "stream sync",
    "cudaDeviceSynchronize": "device sync",
    "cudaEventSynchronize": "event sync",
    "cudaMemcpy": "blocking copy",
}
SYNC_CALLS = frozenset(name for name in SYNC_KIND if not name.startswith("aten::"))  # the runtime's own

# Not "cudnn" alone: cuDNN's batch-norm and layout kernels (cudnn::bn_bw_..., nchwToNhwcKernel) are
# memory-bound and never run on tensor cores.
_MATMUL_CONV = ("gemm", "conv", "xmma", "cutlass", "wgrad", "dgrad", "fprop", "implicit",
                "winograd", "matmul", "hmma", "884", "1688", "16816", "_mma", "cublas", "scudnn",
                "splitkreduce")
# Kernels that run on tensor cores: Volta's h884/s884 (fp16 inputs), Turing's 1688, Ampere's 16816
# and 1688 (tf32), CUTLASS's "tensorop", cuDNN's xmma/hmma kernels.
# (A100's cutlass_80_tensorop_s1688gemm and sm80_xmma_..._tf32f32 are TF32 on tensor cores;
# ampere_sgemm and cudnn_ampere_scudnn are fp32 without them.)
_TENSOR_CORE = ("884", "1688", "16816", "tensorop", "xmma", "hmma", "_mma", "wmma", "tf32",
                "bf16gemm", "gmma")
# Kernels that compute in half precision (fp16 or bf16).
_HALF = ("h884", "h1688", "h16816", "f16", "fp16", "half", "bf16", "__half", "hgemm")
# fp32 kernels that never use tensor cores (Volta and later still pick them for fp32 math); "ffma":
# cuBLAS's xmma kernels for fp32 without TF32 (sm80_xmma_gemm_f32f32_..._ffma_..., seen on an H200).
_FP32_SIMT = ("sgemm", "scudnn", "implicit_convolve_sgemm", "fp32", "_sgemm", "ffma")


def is_communication(name: str) -> bool:
    lowered = name.lower()
    return "nccl" in lowered or "allreduce" in lowered or "all_reduce" in lowered or "reducescatter" in lowered


def is_matmul_conv(name: str) -> bool:
    """A kernel of a matrix product or a convolution: the work tensor cores can do."""
    lowered = name.lower()
    if is_communication(name) or "elementwise" in lowered or "reduce_kernel" in lowered:
        return False
    return any(tag in lowered for tag in _MATMUL_CONV)


def on_tensor_cores(name: str) -> bool:
    lowered = name.lower()
    if any(tag in lowered for tag in _FP32_SIMT) and not any(t in lowered for t in ("884", "1688", "16816")):
        return False
    return any(tag in lowered for tag in _TENSOR_CORE)


def half_precision(name: str) -> bool:
    lowered = name.lower()
    return any(tag in lowered for tag in _HALF)


def copy_direction(name: str) -> str:
    """"h2d", "d2h", "d2d" or "other" for a memcpy event's name (both dialects name the kind:
    "Memcpy HtoD (Pageable -> Device)")."""
    if "HtoD" in name:
        return "h2d"
    if "DtoH" in name:
        return "d2h"
    if "DtoD" in name or "PtoP" in name:
        return "d2d"
    return "other"


def copy_pageable(name: str) -> bool:
    return "Pageable" in name
