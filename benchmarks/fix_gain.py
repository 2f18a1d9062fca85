"""Measure what-if fixes on a script, whether or not a rule named them: the course sample's before and after.

    python benchmarks/fix_gain.py [--script sample_scripts/course_resnet_cifar.py] [--fixes compile,amp_bf16]
                                  [--budget 900] [--out DIR]

Runs the what-if's own trials (trainprobe/whatif/session.py: baseline and fix runs alternating under
the probe, each figure the mean steady step of its run) for each fix, then for all of them together,
and prints each one's speed-up with its interval, what compiling cost and when it pays back, and the
MFU before and after: a plain ``trainprobe diagnose`` of the script first counts its FLOPs per sample
and measures the CPU's peak in fp32 and bf16; each trial's samples per second times those FLOPs,
over the peak for the dtype its products ran in (bf16 under amp_bf16), is its MFU. A rule's estimate
is not involved: this is how the README's before/after is measured.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trainprobe.facts import compute_facts, facts_by_name  # noqa: E402
from trainprobe.record import RunRecord  # noqa: E402
from trainprobe.whatif.compile_cost import compile_cost  # noqa: E402
from trainprobe.whatif.fixes import Candidate  # noqa: E402
from trainprobe.whatif.session import Session  # noqa: E402


def _reference(script: str, out: Path) -> dict:
    """FLOPs per sample and the peaks, from a plain diagnose of the script."""
    import subprocess

    subprocess.run([sys.executable, "-m", "trainprobe", "diagnose", "-q", "-o", str(out / "diagnose"), script],
                   cwd=str(Path(script).resolve().parent), capture_output=True, check=False, timeout=900)
    record = RunRecord.load(out / "diagnose" / "run.json")
    facts = facts_by_name(compute_facts(record))
    return {"flops_per_sample": facts.get("flops_per_sample"), "peaks": dict(record.compute.peak.flops_per_s),
            "mfu": facts.get("mfu")}


def _mfu(trials, reference: dict, dtype: str):
    rates = [t.samples_per_second for t in trials if t.ok and t.samples_per_second]
    peak, per_sample = reference["peaks"].get(dtype), reference["flops_per_sample"]
    if not rates or not peak or not per_sample:
        return None
    return statistics.median(rates) * per_sample / peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", default=str(ROOT / "sample_scripts" / "course_resnet_cifar.py"))
    parser.add_argument("--fixes", default="compile,amp_bf16")
    parser.add_argument("--budget", type=float, default=900.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    fixes = [f for f in args.fixes.split(",") if f]
    out = args.out or Path(tempfile.mkdtemp(prefix="fix-gain-"))
    candidates = [Candidate(f, f, {f: True}) for f in fixes]
    if len(fixes) > 1:
        candidates.append(Candidate("all", "combined", {f: True for f in fixes}))
    reference = _reference(args.script, out)
    print(f"diagnose: {reference['flops_per_sample']:.4g} FLOP per sample, MFU {reference['mfu']:.1%}; peaks "
          + ", ".join(f"{k} {v / 1e9:.0f} GFLOP/s" for k, v in reference["peaks"].items()), flush=True)
    session = Session([args.script], out / "trials", args.budget, sys.executable,
                      progress=lambda line: print(line, flush=True))
    outcome = session.run(candidates)
    print(f"\nscript: {args.script}; trials in {out}")
    print("| fix | speed-up (interval, pairs) | MFU baseline | MFU with the fix | compile time | pays back after |")
    print("|---|---|---|---|---|---|")
    for c in candidates:
        result = outcome.results.get(c.key)
        pairs = outcome.pairs.get(c.key, [])
        base = _mfu([b for b, _ in pairs], reference, "fp32")
        fix = _mfu([f for _, f in pairs], reference, "bf16" if "amp_bf16" in c.fixes else "fp32")
        seconds, steps = compile_cost(pairs) if "compile" in c.fixes else (None, None)
        speed = f"{result.median:.2f}x ({result.low:.2f}-{result.high:.2f}, n={result.n})" if result else "no figure"
        print(f"| {c.key} | {speed} | {base:.1%} | " if base is not None else f"| {c.key} | {speed} | - | ", end="")
        print(f"{fix:.1%} | " if fix is not None else "- | ", end="")
        print(f"{seconds:.0f} s | {steps:,.0f} steps |" if seconds is not None and steps else
              ("- | - |" if seconds is None else f"{seconds:.0f} s | never |"))
    failed = [t for t in outcome.trials if not t.ok]
    for t in failed:
        print(f"trial {t.index} ({t.label}) gave no figure: {t.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
