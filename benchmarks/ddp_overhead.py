"""How much the probe slows each rank of a torchrun job (gloo, CPU).

Pairs of whole jobs, alternating plain and probed (A, B, B, A, ...) because this machine is
shared and noisy: `python -m torch.distributed.run --nproc-per-node 2 ddp_job.py` against
`trainprobe diagnose --full --no-profile --nproc-per-node 2 ddp_job.py`, the same script, which
times its own steps (perf_counter around each iteration, the first 10 left out) and prints each
rank's median. Each pair gives a ratio per rank (probed / plain); the figure is the median over
pairs, with the spread. Everything the probe does in a rank is in it: the step hooks, the
DataLoader patches, the timed collectives and DDP's timed communication hook, the event stream;
the parent's samplers run on the same two cores.

    python benchmarks/ddp_overhead.py [--pairs 3] [--steps 300] [--hidden 1024]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "scripts" / "ddp_job.py"
_LINE = re.compile(r"rank (\d+) median step ([0-9.]+) ms")


def _run(probed: bool, args, work: Path, index: int) -> dict[int, float]:
    script = [str(SCRIPT), "--steps", str(args.steps), "--hidden", str(args.hidden), "--report-times"]
    if probed:
        command = [sys.executable, "-m", "trainprobe", "diagnose", "-q", "--full", "--no-profile",
                   "-o", str(work / f"probed-{index}"), "--nproc-per-node", str(args.ranks), *script]
    else:
        command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(args.ranks), *script]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work, timeout=600)
    found = {int(rank): float(ms) / 1000 for rank, ms in _LINE.findall(out.stdout + out.stderr)}
    if len(found) != args.ranks:
        raise SystemExit(f"{'probed' if probed else 'plain'} run {index} gave no step times:\n{out.stderr[-2000:]}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--ranks", type=int, default=2)
    args = parser.parse_args()
    ratios: dict[int, list[float]] = {r: [] for r in range(args.ranks)}
    plain_all: dict[int, list[float]] = {r: [] for r in range(args.ranks)}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for i in range(args.pairs):
            order = (False, True) if i % 2 == 0 else (True, False)
            got = {probed: _run(probed, args, work, i) for probed in order}
            for rank in ratios:
                ratios[rank].append(got[True][rank] / got[False][rank])
                plain_all[rank].append(got[False][rank])
            print(f"pair {i + 1}: " + ", ".join(
                f"rank {r}: plain {got[False][r] * 1000:.2f} ms, probed {got[True][r] * 1000:.2f} ms "
                f"({got[True][r] / got[False][r]:.3f}x)" for r in sorted(ratios)), flush=True)
    print(f"\n{args.ranks} ranks, gloo on CPU, {args.steps} steps of an MLP (64-{args.hidden}-10, batch 16), "
          f"{args.pairs} pairs of whole jobs:")
    for rank, values in ratios.items():
        print(f"  rank {rank}: probed/plain step time {statistics.median(values):.3f}x "
              f"(pairs: {', '.join(f'{v:.3f}' for v in values)}; plain step {statistics.median(plain_all[rank]) * 1000:.2f} ms)")


if __name__ == "__main__":
    main()
