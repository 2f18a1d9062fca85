"""Probe overhead measured within one process: blocks of steps alternate between
plain and probed (hooks and DataLoader patches installed, samplers watching from
another process, as trainprobe's parent does), so machine noise hits both sides
alike. Prints one JSON object. Used by benchmarks/overhead.py.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_loop import build  # noqa: E402

from trainprobe.probe.config import ChildConfig, WindowPlan  # noqa: E402
from trainprobe.probe.events import EventSink  # noqa: E402
from trainprobe.probe.instrument import Instrumentation  # noqa: E402

# Samples this process from outside, like the probe's parent.
_SAMPLER = (
    "import sys, time; from trainprobe.probe.samplers import start_sampling; "
    "s = start_sampling(int(sys.argv[1]), time.monotonic()); print('ready', flush=True); "
    "sys.stdin.read(); s.stop()"
)
_SKIP = 12  # steps at the start of a block: warm-up, when the probe still uses global hooks


def steps_of(loader, net, opt, count):
    times, last, done = [], None, 0
    while done < count:
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
            now = time.perf_counter()
            if last is not None:
                times.append(now - last)
            last = now
            done += 1
            if done >= count:
                break
    return times[_SKIP:]


def probed_block(loader, net, opt, count, work):
    config = ChildConfig(
        out_dir=str(work), events_path=str(work / "events.jsonl"), t0=time.monotonic(),
        plan=WindowPlan(warmup_steps=5, full=True, profiler=False, cprofile=False, max_seconds=None,
                        steady_seconds=1e9, steady_max_steps=10**9),
    )
    sink = EventSink(config.events_path)
    sampler = subprocess.Popen([sys.executable, "-c", _SAMPLER, str(os.getpid())], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    sampler.stdout.readline()  # its start-up (imports) must not overlap the timed steps
    instr = Instrumentation(config, sink)
    instr.install()
    try:
        return steps_of(loader, net, opt, count)
    finally:
        instr.uninstall()
        sink.close()
        sampler.communicate("")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--pairs", type=int, default=6)
    p.add_argument("--steps", type=int, default=150)
    args = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net, data, batch = build(args.model)
    loader = DataLoader(data, batch_size=batch, shuffle=True, drop_last=True)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    steps_of(loader, net, opt, 30)  # first allocations, before anything is compared
    ratios = []
    plain_all, probe_all = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.pairs):
            order = ("plain", "probe") if i % 2 == 0 else ("probe", "plain")
            medians = {}
            for mode in order:
                if mode == "plain":
                    times = steps_of(loader, net, opt, args.steps)
                else:
                    work = Path(tmp) / f"block{i}"
                    work.mkdir()
                    times = probed_block(loader, net, opt, args.steps, work)
                medians[mode] = statistics.median(times)
                (plain_all if mode == "plain" else probe_all).append(medians[mode])
            ratios.append(medians["probe"] / medians["plain"])
    print(json.dumps({
        "model": args.model, "pairs": args.pairs, "steps": args.steps,
        "plain_steps_per_s": 1 / statistics.median(plain_all), "probe_steps_per_s": 1 / statistics.median(probe_all),
        "slowdown_median": statistics.median(ratios), "slowdown_min": min(ratios), "slowdown_max": max(ratios),
    }))


if __name__ == "__main__":
    main()
