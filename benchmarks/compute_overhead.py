"""What the compute and memory counts cost a diagnosis: the counting steps and the CPU peak measurement.

    python benchmarks/compute_overhead.py [--samples clean_mlp,course_resnet_cifar,tiny_batch_launch_bound]

Runs ``trainprobe diagnose`` (the default windows) on each sample and reads its record: the counter's
own cost is the counting steps' time beyond as many steady steps (census steps run under a dispatch
mode); the peak measurement's is its recorded duration (after the script, before the report). Both
are printed in seconds and as a share of the whole run (launch to end).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trainprobe.facts.window import steady_steps  # noqa: E402
from trainprobe.record import PHASE_CENSUS, RunRecord  # noqa: E402


def measure(sample: str, work: Path) -> dict:
    out = work / sample
    subprocess.run([sys.executable, "-m", "trainprobe", "diagnose", "-q", "-o", str(out),
                    str(ROOT / "sample_scripts" / f"{sample}.py")], cwd=str(ROOT / "sample_scripts"),
                   check=False, capture_output=True, timeout=600)
    record = RunRecord.load(out / "run.json")
    census = [s.duration for s in record.steps if s.phase == PHASE_CENSUS]
    steady = [s.duration for s in steady_steps(record)]
    step = statistics.median(steady) if steady else None
    counter = sum(census) - len(census) * step if census and step else None
    peak = record.compute.peak.duration
    return {"sample": sample, "run": record.outcome.duration, "step": step, "census_steps": len(census),
            "counter": counter, "peak": peak}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", default="clean_mlp,course_resnet_cifar,tiny_batch_launch_bound")
    args = parser.parse_args(argv)
    print("| sample | run | steady step (median) | counting steps | counter's cost | share of run | CPU peak | share of run |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for sample in args.samples.split(","):
            m = measure(sample, Path(tmp))
            run = m["run"] or 0.0

            def share(x):
                return f"{x / run:.1%}" if x is not None and run else "-"

            def secs(x):
                return f"{x:.2f} s" if x is not None else "-"
            print(f"| {sample} | {run:.1f} s | {m['step'] * 1e3:.1f} ms | {m['census_steps']} | {secs(m['counter'])} | "
                  f"{share(m['counter'])} | {secs(m['peak'])} | {share(m['peak'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
