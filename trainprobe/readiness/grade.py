"""Grading: Measurement + Expectations -> Grade (pass / warn / fail / skip).

Defaults say what a typical deep-learning course needs; a course's
``--expect`` file overrides a threshold and makes its item required, so a
shortfall there fails instead of warning. Grading never measures anything:
recorded results re-grade identically on any machine.
"""

from __future__ import annotations

from typing import Callable, Optional

from .expect import REQUIREMENT_ITEMS, Expectations, parse_version
from .fmt import COULD_NOT_COLLECT, GIB
from .items import ITEM_TITLES
from .results import (EXIT_CODES, FAIL, NOT_READY, PASS, READY, SKIP, WARN, WARNINGS,
                    Grade, MachineFacts, Measurement)
from .peaks import expected_peaks, pcie_bandwidth_gbps

__all__ = ["grade_all", "grade_one", "verdict_of", "DEFAULTS", "BENCHMARK_ITEMS"]

BENCHMARK_ITEMS = ("jpeg_decode", "disk_read", "matmul_cpu", "matmul_gpu", "h2d", "train_benchmark")

# Default bars (warn below), in the units a person reads.
DEFAULTS = {
    "python_min": "3.10", "torch_min": "2.0", "cores": 4, "ram_gb": 8.0, "shm_gb": 2.0,
    "shm_fail_mib": 256, "disk_free_gb": 20.0, "disk_free_fail_gb": 2.0, "gpu_memory_gb": 6.0,
    "compute_capability": "7.0", "jpeg_decode_per_core": 150.0, "disk_read_mb_s": 100.0,
    "images_per_second": 300.0, "gpu_peak_share": 0.4, "h2d_link_share": 0.5, "power_cap_share": 0.9,
}

FIX_GPU = ("use a machine with an NVIDIA GPU (the lab machines, Google Colab or a cloud GPU); if this "
           "machine has one, install the NVIDIA driver until `nvidia-smi` lists it, and in a container "
           "start it with `--gpus all`")
FIX_TORCH = "pip install torch torchvision (pick the command for your CUDA version at pytorch.org)"
FIX_MATCHING = ("install matching builds together from the same index: "
                "pip install --force-reinstall torch torchvision (with the same --index-url for both)")
# NVML throttle bits that mean the GPU is being slowed down (not idle, not app clocks).
SLOWDOWN_BITS = {0x8: "hardware slowdown", 0x20: "software thermal slowdown",
                 0x40: "hardware thermal slowdown", 0x80: "power brake"}

Grader = Callable[[Measurement, Expectations, MachineFacts, bool], Grade]


def _shown(m: Measurement) -> str:
    if m.skipped:
        return m.reason or "not applicable here"
    if m.shown is not None:
        return m.shown
    return str(m.value) if m.value is not None else f"{COULD_NOT_COLLECT}: {m.reason or 'unknown reason'}"


def _g(m: Measurement, status: str, threshold: str, note: Optional[str] = None,
       fix: Optional[str] = None, required: bool = False) -> Grade:
    return Grade(key=m.key, title=m.title or ITEM_TITLES.get(m.key, m.key), status=status,
                 measured=_shown(m), threshold=threshold, note=note, fix=fix, required=required)


def _vmin(value: Optional[str], minimum: str) -> bool:
    v, lo = parse_version(value or ""), parse_version(minimum)
    return v is not None and lo is not None and v >= lo


def _bar(m: Measurement, value: float, required_min: Optional[float], default_min: float,
         unit: str, fix: str, req: bool, note_low: str, fail_below: Optional[float] = None) -> Grade:
    """A number that must reach a bar: fail below the course's bar (or fail_below), warn below the default."""
    if required_min is not None:
        status = PASS if value >= required_min else FAIL
        return _g(m, status, f">= {required_min:g} {unit} (course)", None if status == PASS else note_low,
                  None if status == PASS else fix, req)
    if fail_below is not None and value < fail_below:
        return _g(m, FAIL, f">= {default_min:g} {unit}", note_low, fix, req)
    status = PASS if value >= default_min else WARN
    return _g(m, status, f">= {default_min:g} {unit}", None if status == PASS else note_low,
              None if status == PASS else fix, req)


# ----------------------------------------------------------- software

def grade_python(m, ex, f, req):  # type: ignore[no-untyped-def]
    need = ex.python_min or DEFAULTS["python_min"]
    if _vmin(m.value, need):
        return _g(m, PASS, f">= {need}", required=req)
    status = FAIL if ex.python_min or not _vmin(m.value, "3.9") else WARN
    return _g(m, status, f">= {need}", "recent torch releases need a newer Python",
              f"install Python {need} or newer (e.g. a new conda or venv environment)", req)


def grade_torch(m, ex, f, req):  # type: ignore[no-untyped-def]
    need = ex.torch_min or DEFAULTS["torch_min"]
    if m.value is None:
        return _g(m, FAIL, f"importable, >= {need}", "the course's code cannot run without torch", FIX_TORCH, req)
    if _vmin(m.value, need):
        return _g(m, PASS, f">= {need}", required=req)
    return _g(m, FAIL if ex.torch_min else WARN, f">= {need}", "this torch is older than the course expects",
              f"pip install --upgrade 'torch>={need}' torchvision", req)


def grade_torchvision(m, ex, f, req):  # type: ignore[no-untyped-def]
    d = m.details
    need = ex.torchvision_min
    threshold = "imports, ops run" + (f", >= {need}" if need else "")
    error = d.get("error") or ""
    if m.value is None and "not installed" not in error and error:
        return _g(m, FAIL, threshold, f"torchvision is broken: {error[:200]}", FIX_MATCHING, req)
    if m.value is None:
        return _g(m, FAIL if req else WARN, threshold, "torchvision is not installed (models, datasets, transforms)",
                  "pip install torchvision (together with torch, from the same index)", req)
    if not d.get("ops_ok"):
        mismatch = "does not exist" in error
        note = ("torch and torchvision come from different builds (`operator torchvision::nms does not exist`)"
                if mismatch else f"torchvision's compiled ops fail: {error[:200]}")
        return _g(m, FAIL, threshold, note, FIX_MATCHING, req)
    pin = str(d.get("requires") or "")
    if "==" in pin:
        pinned = pin.split("==", 1)[1].strip(" )")
        if parse_version(pinned)[:2] != (parse_version(str(d.get("torch"))) or ())[:2]:  # type: ignore[index]
            return _g(m, WARN, threshold, f"torchvision was built for torch {pinned}, torch is {d.get('torch')}",
                      FIX_MATCHING, req)
    if need and not _vmin(m.value, need):
        return _g(m, FAIL, threshold, "older than the course expects",
                  f"pip install --upgrade torch 'torchvision>={need}'", req)
    return _g(m, PASS, threshold, required=req)


def grade_cuda_driver(m, ex, f, req):  # type: ignore[no-untyped-def]
    d = m.details
    threshold = "driver's CUDA >= torch's CUDA build"
    if m.value == "cpu":
        return _g(m, FAIL, "a CUDA build of torch on a GPU machine",
                  "torch is a CPU-only build: it cannot use this machine's GPU", FIX_TORCH, req)
    build, driver = parse_version(d.get("build") or ""), parse_version(d.get("driver_cuda") or "")
    if build is None or driver is None:
        return _g(m, WARN, threshold, "could not read the driver's CUDA version to compare",
                  "run `nvidia-smi` and check that its 'CUDA Version' is at least torch.version.cuda", req)
    if build[0] > driver[0]:
        return _g(m, FAIL, threshold, f"the driver is too old for this torch (CUDA {d.get('build')} build)",
                  f"update the NVIDIA driver to one that supports CUDA {d.get('build')}, or install a torch "
                  f"build for CUDA {d.get('driver_cuda')} or older from pytorch.org", req)
    if build[:2] > driver[:2]:
        return _g(m, WARN, threshold, "newer minor CUDA than the driver: most things work (minor-version "
                  "compatibility) but some kernels may fail to JIT-compile",
                  "update the NVIDIA driver, or install a torch build for an older CUDA", req)
    return _g(m, PASS, threshold, required=req)


def grade_cudnn(m, ex, f, req):  # type: ignore[no-untyped-def]
    if m.value is None:
        return _g(m, WARN, "available", "convolutions will be much slower without cuDNN", FIX_TORCH, req)
    return _g(m, PASS, "available", required=req)


# ---------------------------------------------------------------- GPU

def grade_gpu(m, ex, f, req):  # type: ignore[no-untyped-def]
    d = m.details
    threshold = "a CUDA GPU visible to torch and NVML" + (" (course)" if ex.gpu else "")
    if not m.value:
        why = (m.reason or "").replace("GPU metrics unavailable: ", "")
        note = "no NVIDIA GPU visible: training will run on the CPU, 10-100x slower" + (f". NVML: {why}" if why else "")
        return _g(m, FAIL if ex.gpu else WARN, threshold, note, FIX_GPU, req)
    if d.get("nvml_count") and not d.get("torch_count"):
        why = d.get("cuda_error") or "torch.cuda.is_available() is False"
        vis = d.get("cuda_visible_devices")
        extra = f"; CUDA_VISIBLE_DEVICES={vis!r} hides GPUs" if vis is not None and vis.strip() in ("", "-1") else ""
        return _g(m, FAIL, threshold, f"the GPU is there but torch cannot use it: {why}{extra}",
                  "install a CUDA build of torch that the driver supports (see 'CUDA build vs driver')", req)
    if not d.get("nvml_count"):
        return _g(m, WARN, threshold, "torch sees the GPU but NVML does not: GPU utilisation, memory and "
                  "throttling cannot be monitored", "install the NVIDIA driver's management library "
                  "(libnvidia-ml, part of the driver) and `pip install nvidia-ml-py`", req)
    return _g(m, PASS, threshold, required=req)


def grade_gpu_memory(m, ex, f, req):  # type: ignore[no-untyped-def]
    need = ex.gpu_memory_gb
    return _bar(m, m.value / GIB, need, DEFAULTS["gpu_memory_gb"], "GiB",
                "use a GPU with more memory, or smaller batches with gradient accumulation", req,
                "models and batches of the course may not fit in GPU memory")


def grade_gpu_features(m, ex, f, req):  # type: ignore[no-untyped-def]
    d = m.details
    needs = []
    if ex.compute_capability:
        needs.append(f">= {ex.compute_capability}")
    if ex.bf16:
        needs.append("bf16")
    if ex.tf32:
        needs.append("TF32")
    threshold = ", ".join(needs) + " (course)" if needs else f">= {DEFAULTS['compute_capability']}"
    if d.get("arch_supported") is False:
        return _g(m, FAIL, "a GPU this torch build has kernels for",
                  f"this torch build carries no code for compute capability {m.value} ({d.get('gpu')})",
                  "install a torch build that supports this GPU (older GPUs need older CUDA builds)", req)
    if ex.bf16 and not d.get("bf16"):
        return _g(m, FAIL, threshold, "no bf16 support (needs compute capability 8.0, Ampere, or newer)",
                  "use an Ampere or newer GPU (A100, RTX 30xx, L4, H100...)", req)
    if ex.tf32 and not d.get("tf32"):
        return _g(m, FAIL, threshold, "no TF32 (needs compute capability 8.0 or newer)",
                  "use an Ampere or newer GPU", req)
    need = ex.compute_capability or DEFAULTS["compute_capability"]
    if not _vmin(m.value, need):
        return _g(m, FAIL if ex.compute_capability else WARN, threshold,
                  "an old GPU: recent torch builds drop support for it and it has few tensor-core features",
                  "use a newer GPU (compute capability 7.5 or newer)", req)
    return _g(m, PASS, threshold, required=req)


def grade_gpu_clocks(m, ex, f, req):  # type: ignore[no-untyped-def]
    threshold = f"no thermal/power slowdown, power cap >= {DEFAULTS['power_cap_share']:.0%} of max"
    slow = []
    for g in m.details.get("gpus", []):
        bits = g.get("throttle_reasons") or 0
        slow += [f"GPU {g['index']}: {name}" for bit, name in SLOWDOWN_BITS.items() if bits & bit]
    notes, fixes = [], []
    if slow:
        notes.append("the GPU is slowing itself down now: " + "; ".join(slow))
        fixes.append("check cooling and airflow (`nvidia-smi -q -d PERFORMANCE,TEMPERATURE`)")
    if m.value is not None and m.value < DEFAULTS["power_cap_share"]:
        notes.append("the power limit is set below the GPU's maximum: it will run slower")
        fixes.append("ask the administrator to raise it: `sudo nvidia-smi -pl <watts>`")
    if notes:
        return _g(m, WARN, threshold, "; ".join(notes), "; ".join(fixes), req)
    return _g(m, PASS, threshold, required=req)


def grade_gpu_pcie(m, ex, f, req):  # type: ignore[no-untyped-def]
    threshold = "link width at its maximum"
    narrow = [g for g in m.details.get("gpus", []) if g.get("width_max") and g["width"] < g["width_max"]]
    if narrow:
        return _g(m, WARN, threshold, "the GPU runs on fewer PCIe lanes than it supports: host-to-GPU "
                  "copies are slower", "seat the GPU in a full x16 slot; check BIOS lane sharing", req)
    slow_gen = [g for g in m.details.get("gpus", []) if g.get("gen_max") and g["gen"] < g["gen_max"]]
    note = ("link below its top generation now; idle GPUs slow the link to save power, "
            "the full check measures copies under load") if slow_gen else None
    return _g(m, PASS, threshold, note, required=req)


# --------------------------------------------------------------- host

def grade_cpu_cores(m, ex, f, req):  # type: ignore[no-untyped-def]
    return _bar(m, float(m.value), ex.cores, DEFAULTS["cores"], "cores",
                "use a machine (or container/VM limits) with more cores; check `taskset` and the "
                "container's --cpus", req,
                "few cores for DataLoader workers: data loading and augmentation may starve the GPU")


def grade_ram(m, ex, f, req):  # type: ignore[no-untyped-def]
    return _bar(m, m.value / GIB, ex.ram_gb, DEFAULTS["ram_gb"], "GiB",
                "use a machine with more RAM, fewer DataLoader workers, or a smaller dataset cache", req,
                "little RAM: DataLoader workers and datasets held in memory may be killed")


def grade_swap(m, ex, f, req):  # type: ignore[no-untyped-def]
    ram = m.details.get("ram_total") or 0
    threshold = "some swap when RAM < 16 GiB"
    if m.value == 0 and ram < 16 * GIB:
        return _g(m, WARN, threshold, "no swap and little RAM: running out of memory kills training without warning",
                  "add a swap file (`sudo fallocate -l 8G /swapfile && sudo mkswap /swapfile && sudo swapon /swapfile`)",
                  req)
    return _g(m, PASS, threshold, required=req)


def grade_shm(m, ex, f, req):  # type: ignore[no-untyped-def]
    return _bar(m, m.value / GIB, ex.shm_gb, DEFAULTS["shm_gb"], "GiB",
                "in Docker start the container with `--shm-size=8g` (or `--ipc=host`); on Kubernetes mount an "
                "emptyDir with medium: Memory at /dev/shm", req,
                "DataLoader workers pass batches through /dev/shm; too small and they crash with "
                "'Bus error' or 'unable to write to file'", fail_below=DEFAULTS["shm_fail_mib"] / 1024)


def grade_disk_free(m, ex, f, req):  # type: ignore[no-untyped-def]
    return _bar(m, m.value / GIB, ex.disk_free_gb, DEFAULTS["disk_free_gb"], "GiB",
                "free space (`du -sh ~/.cache/*`, `pip cache purge`, `conda clean -a`) or put data on a larger disk",
                req, "datasets, checkpoints and caches need room", fail_below=DEFAULTS["disk_free_fail_gb"])


def grade_disk_type(m, ex, f, req):  # type: ignore[no-untyped-def]
    d = m.details
    threshold = "local SSD (or memory)" + (" (course)" if ex.ssd else "")
    fix = "copy the dataset to a local SSD (e.g. /tmp or a scratch disk) before training"
    where = "" if d.get("data_dir_given") else " (no --data given: the current folder's disk)"
    if m.value == "network":
        return _g(m, FAIL if ex.ssd else WARN, threshold, f"data on a network file system ({d.get('fstype')}): "
                  f"many small reads are slow{where}", fix, req)
    if m.value == "rotational" and d.get("virtual_device"):
        return _g(m, PASS, threshold, "a virtual disk: its 'rotational' flag is unreliable; the full check "
                  "with --data measures the real read speed", required=req)
    if m.value == "rotational":
        return _g(m, FAIL if ex.ssd else WARN, threshold, f"the kernel reports a spinning disk{where}: "
                  "random reads of many small images are slow", fix, req)
    if m.value == "unknown":
        return _g(m, WARN if req else PASS, threshold, "could not tell the disk type", required=req)
    return _g(m, PASS, threshold, required=req)


def grade_pillow(m, ex, f, req):  # type: ignore[no-untyped-def]
    threshold = "installed, with libjpeg-turbo"
    if m.value is None:
        return _g(m, WARN, threshold, "torchvision's image datasets need Pillow", "pip install pillow", req)
    if m.details.get("libjpeg_turbo") is False:
        return _g(m, WARN, threshold, "Pillow without libjpeg-turbo decodes JPEGs 2-3x slower",
                  "pip install --force-reinstall pillow (PyPI wheels ship libjpeg-turbo)", req)
    note = None if m.details.get("simd") else "optional: pillow-SIMD can resize/augment faster"
    return _g(m, PASS, threshold, note, required=req)


# --------------------------------------------------------- benchmarks

def grade_jpeg_decode(m, ex, f, req):  # type: ignore[no-untyped-def]
    cores = f.environment.usable_cores or 1
    g = _bar(m, float(m.value), ex.jpeg_decode_per_core, DEFAULTS["jpeg_decode_per_core"], "images/s/core",
             "install Pillow with libjpeg-turbo (pip install --force-reinstall pillow), or pillow-SIMD", req,
             "slow JPEG decoding: image datasets will be CPU-bound")
    note = f"~{m.value * cores:,.0f} images/s with all {cores} usable cores (500x375 JPEG, decode only)"
    return Grade(**{**g.to_dict(), "note": (g.note + "; " if g.note else "") + note})


def grade_disk_read(m, ex, f, req):  # type: ignore[no-untyped-def]
    share = m.details.get("from_storage_share")
    cached = share is not None and share < 0.5
    g = _bar(m, float(m.value), ex.disk_read_mb_s, DEFAULTS["disk_read_mb_s"], "MB/s",
             "copy the dataset to a local SSD; pack many small files into larger shards", req,
             "slow reads: the first epoch (and every epoch if the data does not fit in RAM) will wait on disk")
    if cached:
        extra = (f"only {share:.0%} came from the disk: the page cache served the rest, so this is closer "
                 "to memory speed than to the disk's")
        return Grade(**{**g.to_dict(), "note": (g.note + "; " if g.note else "") + extra})
    return g


def grade_matmul_cpu(m, ex, f, req):  # type: ignore[no-untyped-def]
    return _g(m, PASS, "none (for comparison)", f"{m.details.get('threads')} torch threads, 1024x1024 fp32",
              required=req)


def grade_matmul_gpu(m, ex, f, req):  # type: ignore[no-untyped-def]
    tflops = m.details.get("tflops", {})
    peaks = expected_peaks(str(m.details.get("device", "")))
    if not peaks:
        return _g(m, PASS, "expected peak unknown for this GPU", required=req)
    shares = {k: v / peaks[k] for k, v in tflops.items() if k in peaks and peaks[k]}
    best = max(shares, key=lambda k: shares[k]) if shares else None
    threshold = f">= {DEFAULTS['gpu_peak_share']:.0%} of datasheet peak"
    if best is None:
        return _g(m, PASS, threshold, "no dtype with a known peak", required=req)
    note = ", ".join(f"{k} {tflops[k]:g}/{peaks[k]:g} TFLOP/s ({shares[k]:.0%})" for k in shares)
    if shares[best] < DEFAULTS["gpu_peak_share"]:
        return _g(m, WARN, threshold, f"far below the datasheet: {note}",
                  "check throttling, power cap and other processes on the GPU (`nvidia-smi`)", req)
    return _g(m, PASS, threshold, note, required=req)


def grade_h2d(m, ex, f, req):  # type: ignore[no-untyped-def]
    gbps = m.details.get("gbps", {})
    links = [pcie_bandwidth_gbps(g.pcie_gen_max or g.pcie_gen, g.pcie_width_max or g.pcie_width)
             for g in f.environment.gpus]
    link = min((x for x in links if x), default=None)
    note = f"pageable {gbps.get('pageable', '?')} GB/s vs pinned {gbps.get('pinned', '?')} GB/s"
    if gbps.get("pageable") and gbps.get("pinned") and gbps["pageable"] < 0.6 * gbps["pinned"]:
        note += "; use DataLoader(pin_memory=True) and .to(device, non_blocking=True)"
    if link is None:
        return _g(m, PASS, "PCIe link unknown", note, required=req)
    threshold = f">= {DEFAULTS['h2d_link_share']:.0%} of the link's {link:.0f} GB/s (pinned)"
    if m.value < DEFAULTS["h2d_link_share"] * link:
        return _g(m, WARN, threshold, "slow copies to the GPU: " + note,
                  "check the PCIe slot and link (see 'GPU PCIe link'), and NUMA placement", req)
    return _g(m, PASS, threshold, note, required=req)


def grade_train_benchmark(m, ex, f, req):  # type: ignore[no-untyped-def]
    d = m.details
    g = _bar(m, float(m.value), ex.images_per_second, DEFAULTS["images_per_second"], "images/s",
             "see the GPU item" if d.get("device") == "cpu" else "see the other items: GPU throttling, data loading, cores",
             req, "training runs slowly here" + (" (on the CPU)" if d.get("device") == "cpu" else ""))
    desc = (f"{d.get('model')} {d.get('input')} batch {d.get('batch_size')}, {d.get('num_workers')} worker(s), "
            f"{d.get('device')}, median {d.get('step_ms')} ms/step")
    lo, hi = d.get("step_ms_min"), d.get("step_ms_max")
    if lo and hi and hi > 2 * lo:
        desc += f"; steps varied {lo:g}-{hi:g} ms: a busy or shared machine, re-run to confirm"
    return Grade(**{**g.to_dict(), "note": (g.note + "; " if g.note else "") + desc})


GRADERS: dict[str, Grader] = {
    "python": grade_python, "torch": grade_torch, "torchvision": grade_torchvision,
    "cuda_driver": grade_cuda_driver, "cudnn": grade_cudnn, "gpu": grade_gpu,
    "gpu_memory": grade_gpu_memory, "gpu_features": grade_gpu_features, "gpu_clocks": grade_gpu_clocks,
    "gpu_pcie": grade_gpu_pcie, "cpu_cores": grade_cpu_cores, "ram": grade_ram, "swap": grade_swap,
    "shm": grade_shm, "disk_free": grade_disk_free, "disk_type": grade_disk_type, "pillow": grade_pillow,
    "jpeg_decode": grade_jpeg_decode, "disk_read": grade_disk_read, "matmul_cpu": grade_matmul_cpu,
    "matmul_gpu": grade_matmul_gpu, "h2d": grade_h2d, "train_benchmark": grade_train_benchmark,
}


def grade_one(m: Measurement, ex: Expectations, facts: MachineFacts) -> Grade:
    required_items = {REQUIREMENT_ITEMS[k] for k in ex.required()}
    req = m.key in required_items
    if m.skipped:
        if req:
            fix = FIX_GPU if "GPU" in (m.reason or "") else FIX_TORCH
            return _g(m, FAIL, "required by the course", f"required, but {m.reason}", fix, True)
        return _g(m, SKIP, "")
    if m.value is None and m.key not in ("torch", "torchvision", "pillow", "cudnn", "cuda_driver"):
        return _g(m, FAIL if req else WARN, "", f"could not measure: {m.reason or 'unknown reason'}",
                  None, req)
    try:
        return GRADERS[m.key](m, ex, facts, req)
    except Exception as exc:  # noqa: BLE001 - a malformed recorded value must not sink the whole check
        return _g(m, WARN, "", f"could not grade this value ({type(exc).__name__}: {exc})", None, req)


def grade_all(measurements: tuple[Measurement, ...], ex: Expectations, facts: MachineFacts,
              mode: str = "full") -> tuple[Grade, ...]:
    grades = [grade_one(m, ex, facts) for m in measurements if m.key in GRADERS]
    present = {m.key for m in measurements}
    for key in sorted({REQUIREMENT_ITEMS[k] for k in ex.required()} - present):
        why = ("not measured with --quick: run the full check" if mode == "quick" and key in BENCHMARK_ITEMS
               else "not measured" + (": run with --data DIR" if key == "disk_read" else ""))
        grades.append(Grade(key=key, title=ITEM_TITLES.get(key, key), status=WARN if mode == "quick" else FAIL,
                            measured=why, threshold="required by the course", note=why, required=True))
    return tuple(grades)


def verdict_of(grades: tuple[Grade, ...]) -> tuple[str, int]:
    statuses = {g.status for g in grades}
    verdict = NOT_READY if FAIL in statuses else WARNINGS if WARN in statuses else READY
    return verdict, EXIT_CODES[verdict]
