"""Measurements that run in a fresh child process: ``python -m trainprobe.readiness.bench NAME``.

Each function here imports what it needs (torch, Pillow), measures, and
returns a JSON-ready dict; :func:`main` prints it on one line starting with
``RESULT_TAG``. Running them in a child keeps a crash, a hang or a broken
torch install from taking the check down: the parent turns any failure into
"could not measure: reason". Sizes are chosen so that each finishes in a few
seconds on a 2-core CPU; the figures are rates over a timed window, so a
faster machine simply does more work in the same time.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import os
import sys
import tempfile
import time
from typing import Any, Callable, Optional

from ..machine import get_torch_facts
from ..record import Availability
from .results import RESULT_TAG

__all__ = ["RESULT_TAG", "BENCHMARKS", "main"]


def _emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(RESULT_TAG + json.dumps(payload, default=str) + "\n")
    sys.stdout.flush()


# ------------------------------------------------------------ torch facts

def torch_facts(args: argparse.Namespace) -> dict[str, Any]:
    """Import torch and torchvision as a training script would; report what works."""
    t0 = time.perf_counter()
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        return {"availability": {"available": False, "reason": f"import torch failed: {exc}"}}
    facts = dataclasses.replace(get_torch_facts(torch), import_seconds=round(time.perf_counter() - t0, 3))
    _emit({"partial": facts.to_dict()})  # keep these even if torchvision crashes the process
    return dataclasses.replace(facts, **_torchvision_facts(torch)).to_dict()


def _torchvision_facts(torch: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        import importlib.metadata as md
        requires = [r for r in (md.requires("torchvision") or []) if r.replace(" ", "").startswith("torch")
                    and not r.startswith("torchvision")]
        out["torchvision_requires_torch"] = next(
            (r for r in requires if r.split("(")[0].split("=")[0].split(">")[0].strip() == "torch"), None)
    except Exception:  # noqa: BLE001
        pass
    try:
        import torchvision
        out["torchvision"] = torchvision.__version__
        boxes = torch.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0]])
        torchvision.ops.nms(boxes, torch.tensor([0.9, 0.8]), 0.5)
        out["torchvision_ops"] = Availability(True, None)
    except ModuleNotFoundError as exc:
        out["torchvision_ops"] = Availability(False, f"not installed ({exc})")
    except Exception as exc:  # noqa: BLE001 - "operator torchvision::nms does not exist" lands here
        out["torchvision_ops"] = Availability(False, f"{type(exc).__name__}: {exc}")
    return out


# ------------------------------------------------------------ JPEG decode

def _make_jpegs(folder: str, count: int = 12, size: tuple[int, int] = (500, 375)) -> list[str]:
    """Photo-like JPEGs (smooth shapes plus grain), ImageNet's typical size and quality."""
    from PIL import Image
    paths = []
    for i in range(count):
        small = Image.frombytes("RGB", (20, 15), os.urandom(20 * 15 * 3))
        img = small.resize(size, Image.BICUBIC)
        grain = Image.frombytes("L", size, os.urandom(size[0] * size[1])).convert("RGB")
        img = Image.blend(img, grain, 0.08)
        path = os.path.join(folder, f"img{i:03d}.jpg")
        img.save(path, "JPEG", quality=90)
        paths.append(path)
    return paths


def jpeg_decode(args: argparse.Namespace) -> dict[str, Any]:
    from PIL import Image
    with tempfile.TemporaryDirectory(prefix="trainprobe-jpeg-") as folder:
        paths = _make_jpegs(folder)
        blobs = [open(p, "rb").read() for p in paths]
    for blob in blobs:  # warm up
        Image.open(io.BytesIO(blob)).convert("RGB")
    n, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall0 < args.seconds or n < 20:
        Image.open(io.BytesIO(blobs[n % len(blobs)])).convert("RGB")
        n += 1
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    # one thread decodes: images per CPU-second is the rate of one core, steal excluded
    per_core = n / cpu if cpu > 0 else n / wall
    return {"value": round(per_core, 1), "details": {
        "images": n, "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
        "wall_rate": round(n / wall, 1), "size": "500x375", "quality": 90,
        "mean_file_bytes": int(sum(map(len, blobs)) / len(blobs))}}


# -------------------------------------------------------------- disk read

def disk_read(args: argparse.Namespace) -> dict[str, Any]:
    import psutil
    files = []
    for root, _dirs, names in os.walk(args.data):
        files.extend(os.path.join(root, n) for n in sorted(names))
        if len(files) > 100_000:
            break
    if not files:
        raise RuntimeError(f"no files to read in {args.data}")
    proc = psutil.Process()
    storage0 = _read_bytes(proc)
    total, nfiles, t0 = 0, 0, time.perf_counter()
    budget = args.max_mb * 1024 * 1024
    for path in files:
        try:
            with open(path, "rb", buffering=0) as fh:
                while chunk := fh.read(1 << 20):
                    total += len(chunk)
                    if total >= budget:
                        break
        except OSError:
            continue
        nfiles += 1
        if total >= budget or time.perf_counter() - t0 > args.seconds:
            break
    elapsed = time.perf_counter() - t0
    if total == 0:
        raise RuntimeError(f"could not read any file in {args.data}")
    storage = _read_bytes(proc)
    storage_share = None if storage0 is None or storage is None else min(1.0, (storage - storage0) / total)
    return {"value": round(total / elapsed / 1e6, 1), "details": {
        "bytes": total, "files": nfiles, "seconds": round(elapsed, 3),
        "from_storage_share": None if storage_share is None else round(storage_share, 3)}}


def _read_bytes(proc: Any) -> Optional[int]:
    try:
        return int(proc.io_counters().read_bytes)
    except Exception:  # noqa: BLE001
        return None


# ----------------------------------------------------------------- matmul

def _time_loop(fn: Callable[[], Any], seconds: float, sync: Callable[[], Any] = lambda: None) -> tuple[int, float]:
    fn()
    sync()
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        if n % 4 == 0:
            sync()
            if time.perf_counter() - t0 >= seconds:
                return n, time.perf_counter() - t0


def matmul_cpu(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    size = 1024
    a, b = torch.randn(size, size), torch.randn(size, size)
    n, elapsed = _time_loop(lambda: a @ b, args.seconds)
    gflops = 2 * size ** 3 * n / elapsed / 1e9
    return {"value": round(gflops, 1), "details": {
        "dtype": "float32", "size": size, "iterations": n, "threads": torch.get_num_threads()}}


def matmul_gpu(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA GPU")
    dev, size = torch.device("cuda"), 4096
    results: dict[str, float] = {}
    old_tf32 = torch.backends.cuda.matmul.allow_tf32
    cases = [("fp32", torch.float32, False), ("tf32", torch.float32, True), ("fp16", torch.float16, False)]
    if torch.cuda.is_bf16_supported():
        cases.append(("bf16", torch.bfloat16, False))
    try:
        for label, dtype, tf32 in cases:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a = torch.randn(size, size, device=dev, dtype=dtype)
            b = torch.randn(size, size, device=dev, dtype=dtype)
            n, elapsed = _time_loop(lambda: a @ b, args.seconds / len(cases), torch.cuda.synchronize)
            results[label] = round(2 * size ** 3 * n / elapsed / 1e12, 2)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old_tf32
    return {"value": max(results.values()), "details": {
        "tflops": results, "size": size, "device": torch.cuda.get_device_name(0)}}


# -------------------------------------------------------------------- H2D

def h2d(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA GPU")
    nbytes = 256 * 1024 * 1024
    dst = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    pageable = torch.empty(nbytes, dtype=torch.uint8)
    pinned = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    pageable.fill_(1)
    pinned.fill_(1)
    rates = {}
    for label, src in (("pageable", pageable), ("pinned", pinned)):
        n, elapsed = _time_loop(lambda: dst.copy_(src, non_blocking=True),
                                args.seconds / 2, torch.cuda.synchronize)
        rates[label] = round(nbytes * n / elapsed / 1e9, 2)
    return {"value": rates["pinned"], "details": {"gbps": rates, "bytes": nbytes}}


# -------------------------------------------------------- training bench

class _SyntheticImages:
    """Random 3x64x64 uint8 images, converted to float in the worker like a real transform."""

    def __init__(self, size: int = 64, pool: int = 256, classes: int = 10) -> None:
        import torch
        g = torch.Generator().manual_seed(0)
        self.images = torch.randint(0, 256, (pool, 3, size, size), dtype=torch.uint8, generator=g)
        self.labels = torch.randint(0, classes, (pool,), generator=g)

    def __len__(self) -> int:
        return 1_000_000

    def __getitem__(self, i: int) -> Any:
        j = i % len(self.images)
        return self.images[j].float().div_(255.0), self.labels[j]


def train(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    import torchvision
    from torch.utils.data import DataLoader
    gpu = torch.cuda.is_available()
    device = torch.device("cuda" if gpu else "cpu")
    batch = 128 if gpu else 32
    workers = max(1, min(4, (args.cores or os.cpu_count() or 2) - 1))
    model = torchvision.models.resnet18(num_classes=10).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(_SyntheticImages(), batch_size=batch, num_workers=workers,
                        pin_memory=gpu, persistent_workers=True)
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    images, steps, t0 = 0, 0, None
    step_times: list[float] = []
    first_batch = last = time.perf_counter()
    for i, (x, y) in enumerate(loader):
        if i == 0:
            first_batch = time.perf_counter() - first_batch
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if i == 2:  # warm-up done: cudnn autotune, allocator, worker start
            sync()
            t0 = time.perf_counter()
        elif t0 is not None:
            sync()
            now = time.perf_counter()
            step_times.append(now - last)
            images += x.shape[0]
            steps += 1
            if steps >= 5 and now - t0 >= args.seconds:
                break
        last = time.perf_counter()
    elapsed = time.perf_counter() - t0
    # the median step resists a noisy, shared host; the window's mean rate is kept beside it
    ordered = sorted(step_times)
    median = ordered[len(ordered) // 2]
    return {"value": round(batch / median, 1), "details": {
        "window_rate": round(images / elapsed, 1),
        "step_ms_min": round(1000 * ordered[0], 1), "step_ms_max": round(1000 * ordered[-1], 1),
        "model": "resnet18", "input": "3x64x64", "batch_size": batch, "num_workers": workers,
        "device": str(device), "dtype": "float32", "steps": steps,
        "step_ms": round(1000 * median, 1), "seconds": round(elapsed, 2),
        "first_batch_seconds": round(first_batch, 2)}}


BENCHMARKS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "torch_facts": torch_facts, "jpeg_decode": jpeg_decode, "disk_read": disk_read,
    "matmul_cpu": matmul_cpu, "matmul_gpu": matmul_gpu, "h2d": h2d, "train": train,
}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trainprobe.readiness.bench")
    parser.add_argument("name", choices=sorted(BENCHMARKS))
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--data", default=None)
    parser.add_argument("--max-mb", type=int, default=512)
    parser.add_argument("--cores", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        _emit(BENCHMARKS[args.name](args))
    except Exception as exc:  # noqa: BLE001 - the parent reports it as "could not measure"
        _emit({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
