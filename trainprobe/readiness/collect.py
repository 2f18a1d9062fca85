"""Collect: gather machine facts, run the items and benchmarks, grade, return a CheckResult.

Torch and torchvision are imported in a child process (as a fresh training
script would), and so is every benchmark: a crash or a hang there becomes a
"could not measure: reason" item, never a failed check.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import subprocess
import sys
import time
from typing import Any, Optional

from ..version import __version__
from ..display import in_unit
from ..machine import (close_nvml, collect_environment, get_cuda_driver_version, get_gpu_throttle_reasons,
                       get_user_name, open_nvml, torch_environment)
from ..record import Availability
from .expect import Expectations
from .grade import grade_all, verdict_of
from .item import Benchmark, Item
from .items import BENCHMARKS, measure_quick
from .progress import Progress
from .results import RESULT_TAG, CheckResult, MachineFacts, Measurement, TorchFacts

__all__ = ["collect_facts", "collect_torch_facts", "run_bench", "run_benchmark", "run_benchmarks",
           "run_check", "build_result"]

TORCH_FACTS_TIMEOUT = 90.0


def run_bench(name: str, timeout: float, *args: str) -> tuple[Optional[dict[str, Any]], Optional[str]]:
    """Run one child measurement; (payload, None) or (None or partial payload, reason)."""
    cmd = [sys.executable, "-m", "trainprobe.readiness.bench", name, *args]
    env = dict(os.environ, KINETO_LOG_LEVEL="5", PYTHONWARNINGS="ignore")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s"
    except OSError as exc:
        return None, f"could not start {sys.executable}: {exc}"
    payloads = []
    for line in proc.stdout.splitlines():
        if line.startswith(RESULT_TAG):
            try:
                payloads.append(json.loads(line[len(RESULT_TAG):]))
            except json.JSONDecodeError:
                continue
    final = next((p for p in reversed(payloads) if "partial" not in p), None)
    if final is not None and "error" not in final:
        return final, None
    if final is not None:
        return None, final["error"]
    partial = next((p["partial"] for p in payloads if "partial" in p), None)
    tail = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()][-1:]
    how = f"exit status {proc.returncode}" if proc.returncode >= 0 else f"killed by signal {-proc.returncode}"
    return partial, f"the measuring process failed ({how})" + (f": {tail[0][:300]}" if tail else "")


def collect_torch_facts() -> TorchFacts:
    payload, error = run_bench("torch_facts", TORCH_FACTS_TIMEOUT)
    if payload is None:
        return TorchFacts(availability=Availability(False, f"import torch failed: {error}"))
    facts = TorchFacts.from_dict(payload)
    if error:  # torch imported, then torchvision took the process down
        facts = dataclasses.replace(facts, torchvision_ops=Availability(False, error))
    return facts


def collect_facts(data_dir: Optional[str] = None, torch_facts: Optional[TorchFacts] = None) -> MachineFacts:
    """Everything the quick items need: the Environment, torch's view, NVML extras."""
    env = collect_environment([data_dir or os.getcwd()], include_torch=False)
    tf = torch_facts if torch_facts is not None else collect_torch_facts()
    env = dataclasses.replace(env, **torch_environment(tf))
    cuda_driver, throttle = None, ()
    if env.nvml.available:
        nvml, _ = open_nvml()
        if nvml is not None:
            cuda_driver = get_cuda_driver_version(nvml)
            throttle = tuple(get_gpu_throttle_reasons(nvml, g.index) for g in env.gpus)
            close_nvml(nvml)
    return MachineFacts(environment=env, torch=tf, cuda_driver=cuda_driver,
                        throttle_reasons=throttle, data_dir=data_dir)


def _skip_reason(item: Item, bench: Benchmark, facts: MachineFacts) -> Optional[str]:
    if bench.needs_torch and not facts.torch.availability.available:
        return "needs torch (not importable)"
    if item.needs_gpu and not facts.torch.cuda_available:
        return "needs a GPU visible to torch (none)"
    return None


def run_benchmark(item: Item, bench: Benchmark, facts: MachineFacts) -> Measurement:
    """One benchmark item in its child process (the caller checked that it applies here)."""
    extra = ("--data", facts.data_dir) if bench.needs_data and facts.data_dir else ()
    extra += bench.extra_args(facts) if bench.extra_args else ()
    t0 = time.perf_counter()
    payload, error = run_bench(bench.name, bench.timeout, *bench.args, *extra)
    seconds = round(time.perf_counter() - t0, 2)
    if payload is None or error:
        return item.measured(reason=error, seconds=seconds)
    value = payload["value"]
    return item.measured(value, unit=bench.unit, shown=in_unit(value, bench.unit),
                         details=payload.get("details", {}), seconds=seconds)


def run_benchmarks(facts: MachineFacts, progress: Progress) -> list[Measurement]:
    """Every benchmark item that applies here; one that needs --data is left out without it."""
    out = []
    for item in BENCHMARKS:
        bench = item.benchmark
        if bench is None:
            continue
        skip = _skip_reason(item, bench, facts)
        if skip:
            out.append(item.skipped(skip))
        elif facts.data_dir or not bench.needs_data:
            progress.start(item.title)
            out.append(run_benchmark(item, bench, facts))
            progress.done()
    return out


def build_result(facts: MachineFacts, measurements: list[Measurement], ex: Expectations,
                 mode: str, name: str, duration: float, created_at: Optional[str] = None) -> CheckResult:
    grades = grade_all(tuple(measurements), ex, facts, mode)
    verdict, code = verdict_of(grades)
    return CheckResult(
        name=name, hostname_hash=facts.environment.hostname_hash,
        created_at=created_at or datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        trainprobe_version=__version__, mode=mode, duration=round(duration, 2), course=ex.course,
        expectations=ex.required(), facts=facts, measurements=tuple(measurements), grades=grades,
        verdict=verdict, exit_code=code)


def run_check(quick: bool = True, data_dir: Optional[str] = None, expectations: Optional[Expectations] = None,
              name: Optional[str] = None, progress: Optional[Progress] = None) -> CheckResult:
    """Measure this machine and grade it. Never raises for a machine problem."""
    t0 = time.perf_counter()
    ex = expectations or Expectations()
    progress = progress or Progress(enabled=False)
    progress.start("torch and torchvision (fresh process)")
    facts = collect_facts(data_dir)
    progress.done()
    measurements = measure_quick(facts)
    if not quick:
        measurements += run_benchmarks(facts, progress)
    progress.finish()
    return build_result(facts, measurements, ex, "quick" if quick else "full",
                        name or get_user_name() or "unknown", time.perf_counter() - t0)
