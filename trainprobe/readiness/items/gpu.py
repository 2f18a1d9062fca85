"""GPU: a CUDA GPU that both torch and NVML can see."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...machine import NVML_UNAVAILABLE
from ..item import FIX_GPU, Item, Requirement, grade_of
from ..results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def measure(f: MachineFacts) -> Measurement:
    env, t = f.environment, f.torch
    nvml_names = [g.name for g in env.gpus]
    torch_names = [d.name for d in t.devices]
    details = {"nvml_count": len(nvml_names), "torch_count": len(torch_names) if t.cuda_available else 0,
               "nvml": env.nvml.to_dict(), "names": nvml_names or torch_names,
               "cuda_available": t.cuda_available, "cuda_error": t.cuda_error,
               "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
    count = max(details["nvml_count"], details["torch_count"])
    if count == 0:
        return ITEM.measured(0, shown="none visible", reason=env.nvml.reason or "no NVIDIA GPU found",
                             details=details)
    names = ", ".join(sorted(set(details["names"])))
    return ITEM.measured(count, shown=f"{count} x {names}", details=details)


def _torch_cannot_use_it(d: dict) -> str:
    why = d.get("cuda_error") or "torch.cuda.is_available() is False"
    vis = d.get("cuda_visible_devices")
    hidden = vis is not None and vis.strip() in ("", "-1")
    return f"the GPU is there but torch cannot use it: {why}" + (f"; CUDA_VISIBLE_DEVICES={vis!r} hides GPUs"
                                                                 if hidden else "")


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    d = m.details
    course = ex.get("gpu")
    threshold = "a CUDA GPU visible to torch and NVML" + (" (course)" if course else "")
    if not m.value:
        why = (m.reason or "").replace(NVML_UNAVAILABLE, "")
        note = "no NVIDIA GPU visible: training will run on the CPU, 10-100x slower" + (f". NVML: {why}" if why else "")
        return grade_of(m, FAIL if course else WARN, threshold, note, FIX_GPU, req)
    if d.get("nvml_count") and not d.get("torch_count"):
        return grade_of(m, FAIL, threshold, _torch_cannot_use_it(d),
                        "install a CUDA build of torch that the driver supports (see 'CUDA build vs driver')", req)
    if not d.get("nvml_count"):
        return grade_of(m, WARN, threshold, "torch sees the GPU but NVML does not: GPU utilisation, memory and "
                        "throttling cannot be monitored", "install the NVIDIA driver's management library "
                        "(libnvidia-ml, part of the driver) and `pip install nvidia-ml-py`", req)
    return grade_of(m, PASS, threshold, required=req)


ITEM = Item("gpu", "GPU", grade, order=50, measure=measure, requirements=(Requirement("gpu", "flag"),))
