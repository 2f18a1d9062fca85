"""How much the probe slows the training it measures, outside its profiler windows.

Runs the same training loop plainly (`python bench_loop.py`) and under
`trainprobe diagnose --full --no-profile` (hooks, DataLoader patches and the
10 Hz samplers: everything that runs during the measured window), alternating
A, B, A, B... within one invocation, because this machine is shared and noisy.
Each run times its own steps the same way; each pair gives a ratio of median
step times, and the table shows the median ratio and its spread.

    python benchmarks/overhead.py [--pairs 4] [--models mlp,cnn] [--steps 400]
"""

from __future__ import annotations

import argparse
import json
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    started = time.monotonic()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            rows.append(measure(model, args.pairs, args.steps, Path(tmp)))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, python {platform.python_version()}")
    print(f"{'model':6} {'plain steps/s':>14} {'probe steps/s':>14} {'slowdown (median, min-max)':>30}")
    for r in rows:
        spread = f"{r['slowdown_median']:.3f}x ({r['slowdown_min']:.3f}-{r['slowdown_max']:.3f}, n={r['pairs']})"
        print(f"{r['model']:6} {r['plain_steps_per_s']:14.1f} {r['probe_steps_per_s']:14.1f} {spread:>30}")
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
