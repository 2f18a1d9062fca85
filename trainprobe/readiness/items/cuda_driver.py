"""CUDA build vs driver: the NVIDIA driver must support the CUDA version torch was built for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import FIX_TORCH, Item, grade_of, parse_version, torch_missing
from ..results import FAIL, PASS, WARN, Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM"]


def measure(f: MachineFacts) -> Measurement:
    if torch_missing(f):
        return ITEM.skipped("torch not importable")
    build = f.torch.cuda_build
    details = {"build": build, "driver_cuda": f.cuda_driver, "driver": f.environment.driver}
    if not f.has_gpu and f.environment.driver is None:
        kind = "CUDA " + build if build else "CPU-only"
        return ITEM.skipped(f"no NVIDIA driver to compare with (torch is a {kind} build)", details=details)
    shown = (f"torch CUDA {build or 'none (CPU-only)'}; driver {f.environment.driver or '?'} "
             f"supports CUDA {f.cuda_driver or '?'}")
    return ITEM.measured(build or "cpu", shown=shown, details=details)


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    d = m.details
    threshold = "driver's CUDA >= torch's CUDA build"
    if m.value == "cpu":
        return grade_of(m, FAIL, "a CUDA build of torch on a GPU machine",
                        "torch is a CPU-only build: it cannot use this machine's GPU", FIX_TORCH, req)
    build, driver = parse_version(d.get("build") or ""), parse_version(d.get("driver_cuda") or "")
    if build is None or driver is None:
        return grade_of(m, WARN, threshold, "could not read the driver's CUDA version to compare",
                        "run `nvidia-smi` and check that its 'CUDA Version' is at least torch.version.cuda", req)
    if build[0] > driver[0]:
        return grade_of(m, FAIL, threshold, f"the driver is too old for this torch (CUDA {d.get('build')} build)",
                        f"update the NVIDIA driver to one that supports CUDA {d.get('build')}, or install a torch "
                        f"build for CUDA {d.get('driver_cuda')} or older from pytorch.org", req)
    if build[:2] > driver[:2]:
        return grade_of(m, WARN, threshold, "newer minor CUDA than the driver: most things work (minor-version "
                        "compatibility) but some kernels may fail to JIT-compile",
                        "update the NVIDIA driver, or install a torch build for an older CUDA", req)
    return grade_of(m, PASS, threshold, required=req)


ITEM = Item("cuda_driver", "CUDA build vs driver", grade, order=40, measure=measure, grades_missing=True)
