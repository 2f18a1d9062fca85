"""How much the probe slows the training it measures, outside its profiler windows.

Two measurements, both alternating plain and probed (A, B, B, A, ...) because
this machine is shared and noisy, each pair giving a ratio of median step times:

* in one process (the figure the probe's budget is about): blocks of steps
  alternate between plain and probed, with the hooks and DataLoader patches
  installed and removed between blocks and the samplers watching from another
  process, as trainprobe's parent does (workloads/inprocess_ab.py);
* end to end: `python bench_loop.py` against `trainprobe diagnose --full
  --no-profile bench_loop.py`, separate processes, everything included.

    python benchmarks/overhead.py [--pairs 4] [--models mlp,cnn] [--steps 400]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOOP = HERE / "workloads" / "bench_loop.py"


def _run(mode: str, model: str, steps: int, work: Path, index: int) -> list[float]:
    out = work / f"{model}-{mode}-{index}.json"
    loop_args = [str(LOOP), "--model", model, "--steps", str(steps), "--out", str(out)]
    if mode == "plain":
        cmd = [sys.executable, *loop_args]
    else:
        cmd = [sys.executable, "-m", "trainprobe", "diagnose", "-q", "--full", "--no-profile",
               "-o", str(work / f"run-{model}-{index}"), *loop_args]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{mode} run of {model} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(out.read_text())


def measure(model: str, pairs: int, steps: int, work: Path) -> dict:
    ratios, plain_rates, probe_rates = [], [], []
    for i in range(pairs):
        # Alternate which goes first, so a slow stretch of the machine hits both sides.
        order = ("plain", "probe") if i % 2 == 0 else ("probe", "plain")
        result = {mode: statistics.median(_run(mode, model, steps, work, i)) for mode in order}
        ratios.append(result["probe"] / result["plain"])
        plain_rates.append(1.0 / result["plain"])
        probe_rates.append(1.0 / result["probe"])
    return {
        "model": model,
        "plain_steps_per_s": statistics.median(plain_rates),
        "probe_steps_per_s": statistics.median(probe_rates),
        "slowdown_median": statistics.median(ratios),
        "slowdown_min": min(ratios),
        "slowdown_max": max(ratios),
        "pairs": pairs,
    }


def measure_in_process(model: str, pairs: int) -> dict:
    done = subprocess.run([sys.executable, str(HERE / "workloads" / "inprocess_ab.py"), "--model", model,
                           "--pairs", str(pairs), "--steps", "150" if model == "mlp" else "40"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"in-process A/B of {model} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _row(label: str, r: dict) -> str:
    spread = f"{r['slowdown_median']:.3f}x ({r['slowdown_min']:.3f}-{r['slowdown_max']:.3f}, n={r['pairs']})"
    return f"{label:22} {r['plain_steps_per_s']:14.1f} {r['probe_steps_per_s']:14.1f} {spread:>32}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    started = time.monotonic()
    models = args.models.split(",")
    inside = [measure_in_process(model, args.pairs * 2) for model in models]
    with tempfile.TemporaryDirectory() as tmp:
        separate = [measure(model, args.pairs, args.steps, Path(tmp)) for model in models]
    if args.json:
        print(json.dumps({"in_process": inside, "separate_processes": separate}, indent=2))
        return 0
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    print(f"{'':22} {'plain steps/s':>14} {'probe steps/s':>14} {'slowdown (median, min-max)':>32}")
    for r in inside:
        print(_row(f"{r['model']}, one process", r))
    for r in separate:
        print(_row(f"{r['model']}, end to end", r))
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
