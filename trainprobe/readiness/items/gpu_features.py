"""GPU compute capability: torch must carry kernels for it; bf16 and TF32 need 8.0 (Ampere) or newer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..item import Item, Requirement, at_least, grade_of, visible_gpus
from ..results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_CAPABILITY", "arch_supported"]

DEFAULT_CAPABILITY = "7.0"


def arch_supported(capability: str, arch_list: tuple[str, ...]) -> Optional[bool]:
    """Does the torch build carry code for this GPU? None when torch did not say."""
    if not arch_list:
        return None
    major, minor = (int(x) for x in capability.split("."))
    for arch in arch_list:
        kind, _, num = arch.partition("_")
        num = num.rstrip("af")  # sm_90a, sm_100f: family-specific variants
        if not num.isdigit():
            continue
        a_major, a_minor = int(num[:-1]), int(num[-1])
        if kind == "sm" and a_major == major and a_minor <= minor:
            return True  # same-major binaries run on later minors
        if kind == "compute" and (a_major, a_minor) <= (major, minor):
            return True  # PTX is compiled for newer GPUs on first use
    return False


def measure(f: MachineFacts) -> Measurement:
    gpus = [g for g in visible_gpus(f) if g.compute_capability]
    if not gpus:
        return ITEM.measured(reason="compute capability not reported")
    g = min(gpus, key=lambda x: tuple(int(p) for p in x.compute_capability.split(".")))  # type: ignore[union-attr]
    cc = g.compute_capability or ""
    flags = [name for name, on in (("bf16", g.bf16), ("TF32", g.tf32)) if on]
    return ITEM.measured(cc, shown=f"{cc} ({', '.join(flags) or 'no bf16, no TF32'})", details={
        "bf16": g.bf16, "tf32": g.tf32, "gpu": g.name, "arch_supported": arch_supported(cc, f.torch.arch_list),
        "arch_list": list(f.torch.arch_list)})


def _threshold(ex: Expectations) -> str:
    needs = ([f">= {ex.get('compute_capability')}"] if ex.get("compute_capability") else []) + \
        [name for name, key in (("bf16", "bf16"), ("TF32", "tf32")) if ex.get(key)]
    return ", ".join(needs) + " (course)" if needs else f">= {DEFAULT_CAPABILITY}"


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    d = m.details
    threshold = _threshold(ex)
    if d.get("arch_supported") is False:
        return grade_of(m, FAIL, "a GPU this torch build has kernels for",
                        f"this torch build carries no code for compute capability {m.value} ({d.get('gpu')})",
                        "install a torch build that supports this GPU (older GPUs need older CUDA builds)", req)
    if ex.get("bf16") and not d.get("bf16"):
        return grade_of(m, FAIL, threshold, "no bf16 support (needs compute capability 8.0, Ampere, or newer)",
                        "use an Ampere or newer GPU (A100, RTX 30xx, L4, H100...)", req)
    if ex.get("tf32") and not d.get("tf32"):
        return grade_of(m, FAIL, threshold, "no TF32 (needs compute capability 8.0 or newer)",
                        "use an Ampere or newer GPU", req)
    need = ex.get("compute_capability") or DEFAULT_CAPABILITY
    if not at_least(m.value, need):
        return grade_of(m, FAIL if ex.get("compute_capability") else WARN, threshold,
                        "an old GPU: recent torch builds drop support for it and it has few tensor-core features",
                        "use a newer GPU (compute capability 7.5 or newer)", req)
    return grade_of(m, PASS, threshold, required=req)


ITEM = Item("gpu_features", "GPU compute capability", grade, order=70, measure=measure, needs_gpu=True,
            requirements=(Requirement("compute_capability", "version"), Requirement("bf16", "flag"),
                          Requirement("tf32", "flag")))
