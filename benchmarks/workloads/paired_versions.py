"""This checkout's probe hooks against another version's, in one process, for benchmarks and reviews.

    git archive OLD_COMMIT | tar -x -C /tmp/old
    python benchmarks/workloads/paired_versions.py --other /tmp/old --model mlp --rounds 300

Each round runs one block of steps plainly, one under this checkout's hooks
and one under the other version's, in a random order (a seeded shuffle), so
the machine's slow stretches fall on all three alike. A round gives each
version's added time per step (its block's mean step minus the plain block's),
and the difference between the two versions; the figures are medians over
rounds with 95% bootstrap intervals. Only the hooks are compared (no
samplers); the other version is imported under another name from a copy of
its ``trainprobe`` folder.
"""
import argparse
import importlib
import json
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inprocess_ab import Loop, median_ci, probe_hooks  # noqa: E402


def _probe_modules(package: str) -> tuple:
    return tuple(importlib.import_module(f"{package}.probe.{name}") for name in ("config", "events", "instrument"))


def _block(loop: Loop, steps: int, modules, work: Path) -> float:
    """Mean seconds per step over ``steps`` steps (after the block's first few), plain or under those hooks."""
    if modules is None:
        return loop.block(steps)[2] / steps
    with probe_hooks(work, modules):
        return loop.block(steps)[2] / steps


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--other", required=True, help="a folder holding another version's trainprobe/ package")
    p.add_argument("--model", default="mlp")
    p.add_argument("--rounds", type=int, default=300)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(Path(args.other) / "trainprobe", Path(tmp) / "trainprobe_other")
        sys.path.insert(0, tmp)
        versions = {"this": _probe_modules("trainprobe"), "other": _probe_modules("trainprobe_other")}
        loop = Loop(args.model)
        loop.block(50)
        rng = random.Random(0)
        added: dict[str, list[float]] = {"this": [], "other": []}
        for i in range(args.rounds):
            order = ["plain", "this", "other"]
            rng.shuffle(order)
            work = Path(tmp) / f"round{i}"
            work.mkdir()
            got = {name: _block(loop, args.steps, versions.get(name), work) for name in order}
            for name in added:
                added[name].append((got[name] - got["plain"]) * 1e6)
    difference = [o - t for o, t in zip(added["other"], added["this"])]
    print(json.dumps({
        "model": args.model, "rounds": args.rounds, "steps": args.steps,
        "this_added_us": statistics.median(added["this"]), "this_added_us_ci95": median_ci(added["this"]),
        "other_added_us": statistics.median(added["other"]), "other_added_us_ci95": median_ci(added["other"]),
        "other_minus_this_us": statistics.median(difference), "other_minus_this_us_ci95": median_ci(difference),
    }))


if __name__ == "__main__":
    main()
