"""Does the injected fix measure what the same fix edited into the script by hand measures?

For an input-bound script that takes its worker count on the command line,
runs three kinds of trial, alternating within each round (the order rotated
each round, because this machine is shared and noisy):

* baseline: the script as it is, under the probe;
* injected: the same, with the what-if applying the fix (``--fix num_workers=2``);
* by hand:  the script with the fix edited in (``--hand-args "--num-workers 2"``).

Every trial is the what-if's own trial (same window, same statistics: the
median of its steady steps). Each round gives two speed-ups over its
baseline; the table shows their median and min–max, the spread between the
baselines, and whether injected and by-hand agree within that noise.

    python benchmarks/whatif_agreement.py [--rounds 3] [--fix num_workers=2] \\
        [--hand-args "--num-workers 2"] [--script SCRIPT] [--script-args "..."]

Without ``--script`` it writes and uses a small input-bound script (~25 ms of
Python per batch in ``__getitem__``, a tiny model). On a GPU, try the
pin-memory fix on a script with a ``--pin-memory`` flag:
``--fix pin_memory=true --hand-args "--pin-memory"``.
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trainprobe.whatif.trials import (  # noqa: E402
    Trial, interval, is_measured_gain, pair_ratios, run_trial, spread, trial_plan,
)

INPUT_BOUND = '''
import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Slow(Dataset):
    """Each sample costs ~1.5 ms of Python, as a PIL decode plus augmentations would."""

    def __len__(self):
        return 100000

    def __getitem__(self, i):
        end = time.perf_counter() + 0.0015
        while time.perf_counter() < end:
            pass
        return torch.full((32,), float(i % 7)), i % 4


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-workers", type=int, default=0)
    parser.add_argument("--pin-memory", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = nn.Linear(32, 4).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Slow(), batch_size=16, shuffle=True, num_workers=args.num_workers,
                        pin_memory=args.pin_memory)
    for x, y in loader:
        x, y = x.to(device, non_blocking=args.pin_memory), y.to(device, non_blocking=args.pin_memory)
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
'''


def _parse_fix(text: str) -> dict:
    key, _, value = text.partition("=")
    if value.lower() in ("", "true", "yes"):
        return {key: True}
    return {key: int(value)} if value.isdigit() else {key: value}


def _fmt(result) -> str:
    if result is None:
        return "no pairs"
    return f"{result.median:.2f}× ({result.low:.2f}–{result.high:.2f}, n={result.n})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fix", default="num_workers=2", help="the fix the what-if injects: ID[=VALUE]")
    parser.add_argument("--hand-args", default="--num-workers 2", help="script arguments that make the same fix")
    parser.add_argument("--script", type=Path, help="an input-bound script (default: a built-in one)")
    parser.add_argument("--script-args", default="", help="arguments every trial passes to the script")
    parser.add_argument("--out", type=Path, help="folder for the trials (default: a temporary one)")
    args = parser.parse_args()

    work = args.out or Path(tempfile.mkdtemp(prefix="whatif-agreement-"))
    work.mkdir(parents=True, exist_ok=True)
    script = args.script
    if script is None:
        script = work / "input_bound.py"
        script.write_text(INPUT_BOUND)
    common = [str(script.resolve()), *shlex.split(args.script_args)]
    fix = _parse_fix(args.fix)
    kinds = {
        "baseline": (common, {}),
        "injected": (common, fix),
        "by hand": (common + shlex.split(args.hand_args), {}),
    }
    orders = [("baseline", "injected", "by hand"), ("baseline", "by hand", "injected")]
    plan = trial_plan(max_seconds=60)
    trials: list[dict[str, Trial]] = []
    index = 0
    for r in range(args.rounds):
        row: dict[str, Trial] = {}
        for kind in orders[r % 2]:
            index += 1
            target, fixes = kinds[kind]
            trial = run_trial(index, kind, target, {**fixes, "record_loss": True},
                              work / f"{index:02d}-{kind.replace(' ', '-')}", plan, 120.0, sys.executable)
            row[kind] = trial
            shown = f"{trial.step_time * 1e3:7.1f} ms/step over {trial.steps:3d} steps" if trial.ok \
                else f"failed: {trial.reason}"
            print(f"round {r + 1} {kind:>8}: {shown}", flush=True)
        trials.append(row)

    injected_pairs = [(row["baseline"], row["injected"]) for row in trials]
    hand_pairs = [(row["baseline"], row["by hand"]) for row in trials]
    injected = interval(pair_ratios(injected_pairs))
    by_hand = interval(pair_ratios(hand_pairs))
    agreement = interval(pair_ratios([(row["by hand"], row["injected"]) for row in trials]))
    noise = max(spread([row[kind] for row in trials]) for kind in kinds)
    print()
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"fix: {args.fix} injected vs `{args.hand_args}` by hand, {args.rounds} rounds")
    print(f"speed-up injected : {_fmt(injected)}  measured by the what-if's rule: "
          f"{'yes' if is_measured_gain(injected, injected_pairs) else 'no'}")
    print(f"speed-up by hand  : {_fmt(by_hand)}  measured by the what-if's rule: "
          f"{'yes' if is_measured_gain(by_hand, hand_pairs) else 'no'}")
    print(f"by hand / injected step time: {_fmt(agreement)}  (1.00 = identical)")
    print(f"run-to-run spread (largest over the three kinds, max/min - 1): {noise:.1%}")
    agree = None
    if injected and by_hand and agreement:
        overlap = injected.low <= by_hand.high and by_hand.low <= injected.high
        within_noise = abs(agreement.median - 1.0) <= max(noise, 0.05)
        agree = overlap or within_noise
        print("agreement: " + ("yes" if agree else "NO") + f" (intervals overlap: {overlap}; "
              f"median difference {abs(agreement.median - 1.0):.1%} vs noise {max(noise, 0.05):.1%})")
    (work / "agreement.json").write_text(json.dumps({
        "fix": args.fix, "hand_args": args.hand_args, "script": str(script), "noise": noise,
        "injected": injected.__dict__ if injected else None, "by_hand": by_hand.__dict__ if by_hand else None,
        "agree": agree, "trials": [{k: t.to_dict() for k, t in row.items()} for row in trials],
    }, indent=2, default=list))
    print(f"trials: {work}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
