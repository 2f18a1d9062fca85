"""How much the probe slows the training it measures, outside its profiler windows.

Two measurements, both alternating plain and probed (A, B, B, A, ...) because
this machine is shared and noisy, each pair giving a ratio of median step times:

* in one process (the figure the probe's budget is about): short blocks of
  steps alternate between plain and probed, many times, with the hooks and
  DataLoader patches installed and removed between blocks and the samplers
  watching from another process (frozen during plain blocks), as trainprobe's
  parent does (workloads/inprocess_ab.py). It prints the typical step's ratio
  (median pair) and the throughput ratio (all time, probed / plain), each with
  a 95% bootstrap interval, and the time the probe adds per step. The tiny loop
  does almost no math: its added time is the hooks' own cost per step, which
  sets the slowdown of any loop (added time / step time);
* end to end: `python bench_loop.py` against `trainprobe diagnose --full
  --no-profile bench_loop.py`, separate processes, everything included
  (noisier: a few pairs of whole runs).

    python benchmarks/overhead.py [--models tiny,mlp,cnn] [--pairs 3] [--scale 1]
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


# Block sizes per model: short blocks, many pairs (a block is ~0.1-0.5 s, so a slow stretch of
# the machine hits both sides of a pair).
IN_PROCESS = {"tiny": (150, 20), "mlp": (400, 20), "cnn": (80, 10)}  # model: (pairs, steps per block)


def measure_in_process(model: str, scale: float = 1.0) -> dict:
    pairs, steps = IN_PROCESS[model]
    done = subprocess.run([sys.executable, str(HERE / "workloads" / "inprocess_ab.py"), "--model", model,
                           "--pairs", str(max(4, int(pairs * scale))), "--steps", str(steps)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"in-process A/B of {model} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


_NAMES = {"tiny": "tiny loop (hooks only)", "mlp": "MLP", "cnn": "small convnet"}


def _in_process_row(r: dict) -> str:
    q, ci, us, us_ci = r["wall_ratio_q"], r["wall_ratio_ci95"], r["added_wall_us_q"], r["added_wall_us_ci95"]
    thru, thru_ci = r["throughput_ratio"], r["throughput_ratio_ci95"]
    step_ms = 1000.0 / r["plain_steps_per_s"]
    return (f"| {_NAMES[r['model']]}, {step_ms:.2g} ms steps | {r['plain_steps_per_s']:.1f} | "
            f"{r['probe_steps_per_s']:.1f} | {q[1]:.3f}× [{ci[0]:.3f}–{ci[1]:.3f}] | "
            f"{thru:.3f}× [{thru_ci[0]:.3f}–{thru_ci[1]:.3f}] | "
            f"{us[1]:.0f} µs [{us_ci[0]:.0f}–{us_ci[1]:.0f}] / {r['added_mean_us']:.0f} µs | {r['pairs']} |")


def _end_to_end_row(r: dict) -> str:
    return (f"| {_NAMES[r['model']]}, end to end | {r['plain_steps_per_s']:.1f} | {r['probe_steps_per_s']:.1f} | "
            f"{r['slowdown_median']:.3f}× (pairs {r['slowdown_min']:.3f}–{r['slowdown_max']:.3f}) | | | {r['pairs']} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3, help="end-to-end pairs per model")
    parser.add_argument("--models", default="tiny,mlp,cnn")
    parser.add_argument("--steps", type=int, default=300, help="steps per end-to-end run")
    parser.add_argument("--scale", type=float, default=1.0, help="scale the in-process pair counts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    started = time.monotonic()
    models = args.models.split(",")
    inside = [measure_in_process(model, args.scale) for model in models]
    with tempfile.TemporaryDirectory() as tmp:
        separate = [measure(model, args.pairs, args.steps, Path(tmp)) for model in models
                    if model != "tiny" and args.pairs > 0]
    if args.json:
        print(json.dumps({"in_process": inside, "separate_processes": separate}, indent=2))
        return 0
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    print("| loop | plain steps/s | probed steps/s | typical step, median pair [95% CI] | "
          "throughput, all time [95% CI] | added per step: median [95% CI] / mean | pairs |")
    print("|---|---|---|---|---|---|---|")
    for r in inside:
        print(_in_process_row(r))
    for r in separate:
        print(_end_to_end_row(r))
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
