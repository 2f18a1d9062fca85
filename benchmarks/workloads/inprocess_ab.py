"""Probe overhead measured within one process, for benchmarks/overhead.py.

Short blocks of steps alternate between plain and probed (A B B A ...), many
times over, so that the machine's slow and fast stretches hit both sides
alike. A probed block installs the probe's hooks and DataLoader patches and
lets the samplers watch this process from another process, as trainprobe's
parent does; a plain block takes the hooks off and freezes the sampler process
(SIGSTOP), so the plain side pays for neither.

Each block gives the median wall time and the median CPU time (this thread's)
of its steps, and their total wall time, leaving out its first steps (the
probe's warm-up uses global hooks; the budget is about the steady state). Two
figures come out of the pairs:

* the typical step: the median over pairs of probed / plain median step time
  (robust to the machine's hiccups, but blind to work the probe does only now
  and then, such as writing its buffered step events);
* throughput: total probed time / total plain time over all pairs, which
  counts everything the probe does, at the price of a wider interval.

Both come with a 95% bootstrap interval over pairs. Prints one JSON object.
"""
import argparse
import contextlib
import json
import os
import random
import signal
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

from trainprobe.probe import config as config_module  # noqa: E402
from trainprobe.probe import events as events_module  # noqa: E402
from trainprobe.probe import instrument as instrument_module  # noqa: E402

# Samples this process from outside, like the probe's parent.
_SAMPLER = (
    "import sys, time; from trainprobe.probe.samplers import start_sampling; "
    "s = start_sampling(int(sys.argv[1]), time.monotonic()); print('ready', flush=True); "
    "sys.stdin.read(); s.stop()"
)
_SKIP = 3  # first steps of a block: the probe's one warm-up step (global forward hooks), first batches
_WARMUP = 1  # the probe's warm-up steps in a block (then per-module hooks, as in the steady phase)


class Loop:
    """The training loop, resumable across blocks (one DataLoader iterator at a time)."""

    def __init__(self, model: str, device: str = "cpu") -> None:
        net, data, batch = build(model)
        self.device = torch.device(device)
        self.net = net.to(self.device)
        self.loader = DataLoader(data, batch_size=batch, shuffle=True, drop_last=True)
        self.opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        self.batches = iter(self.loader)

    def _next(self):
        try:
            return next(self.batches)
        except StopIteration:
            self.batches = iter(self.loader)
            return next(self.batches)

    def block(self, count: int) -> tuple[float, float, float]:
        """Median wall and CPU seconds per step and total wall seconds over ``count`` steps, after ``_SKIP``."""
        wall, cpu = [], []
        on_gpu = self.device.type == "cuda"
        if on_gpu:
            torch.cuda.synchronize()  # a block starts with nothing queued from the one before
        last_wall, last_cpu = time.perf_counter(), time.thread_time()
        for i in range(_SKIP + count):
            x, y = self._next()
            if on_gpu:  # through Tensor.to, which the probe times on a GPU: its cost is counted
                x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.opt.zero_grad()
            torch.nn.functional.cross_entropy(self.net(x), y).backward()
            self.opt.step()
            now_wall, now_cpu = time.perf_counter(), time.thread_time()
            if i >= _SKIP:
                wall.append(now_wall - last_wall)
                cpu.append(now_cpu - last_cpu)
            last_wall, last_cpu = now_wall, now_cpu
        if on_gpu:  # the queued work belongs to this block's steps: the total waits for it
            torch.cuda.synchronize()
            wall[-1] += time.perf_counter() - last_wall
        return statistics.median(wall), statistics.median(cpu), sum(wall)


def _busy(iterations: int, table={i: i for i in range(64)}) -> int:
    total = 0
    for i in range(iterations):
        total += table[i & 63]
    return total


def sham(loop: Loop, count: int, iterations: int) -> tuple[float, float, float]:
    """A control, not the probe: a fixed piece of plain Python after every optimizer step.

    Its cost in the tiny loop against the MLP shows how much dearer the same
    Python work gets between a heavier loop's matrix products.
    """
    from torch.optim.optimizer import register_optimizer_step_post_hook

    handle = register_optimizer_step_post_hook(lambda optimizer, args, kwargs: _busy(iterations) and None)
    try:
        return loop.block(count)
    finally:
        handle.remove()


@contextlib.contextmanager
def probe_hooks(work: Path, modules: tuple = (config_module, events_module, instrument_module),
                install: bool = True):
    """The probe's event sink and instrumentation for one block, its hooks installed unless ``install`` is off.

    ``modules`` are a probe version's config, events and instrument modules
    (paired_versions.py passes another version's).
    """
    config_mod, events_mod, instrument_mod = modules
    config = config_mod.ChildConfig(
        out_dir=str(work), events_path=str(work / "events.jsonl"), t0=time.monotonic(),
        plan=config_mod.WindowPlan(warmup_steps=_WARMUP, full=True, profiler=False, cprofile=False,
                                   max_seconds=None, steady_seconds=1e9, steady_max_steps=10**9),
    )
    sink = events_mod.EventSink(config.events_path)
    instr = instrument_mod.Instrumentation(config, sink)
    if install:
        instr.install()
    try:
        yield
    finally:
        if install:
            instr.uninstall()
        sink.close()


def probed(loop: Loop, count: int, work: Path, sampler: subprocess.Popen, hooks: bool = True,
           sampling: bool = True) -> tuple[float, float, float]:
    if sampling:
        os.kill(sampler.pid, signal.SIGCONT)
    try:
        with probe_hooks(work, install=hooks):
            return loop.block(count)
    finally:
        if sampling:
            os.kill(sampler.pid, signal.SIGSTOP)


def median_ci(values: list[float], resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% bootstrap interval of the median (seeded: the same data give the same interval)."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def ratio_of_sums_ci(probe: list[float], plain: list[float], resamples: int = 2000,
                     seed: int = 0) -> tuple[float, float]:
    """95% bootstrap interval of sum(probe) / sum(plain), resampling whole pairs."""
    rng = random.Random(seed)
    indices = range(len(probe))
    ratios = []
    for _ in range(resamples):
        pick = rng.choices(indices, k=len(probe))
        ratios.append(sum(probe[i] for i in pick) / sum(plain[i] for i in pick))
    ratios.sort()
    return ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], statistics.median(values), q[2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--pairs", type=int, default=30)
    p.add_argument("--steps", type=int, default=40, help="measured steps per block")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu", help="cuda: the model and each batch on the GPU (copied in the loop)")
    p.add_argument("--only", choices=("hooks", "samplers", "sham"), default=None,
                   help="probed blocks get only the hooks, or only the samplers watching, or instead of "
                        "the probe a fixed Python busy loop after each optimizer step (a control)")
    p.add_argument("--sham-iterations", type=int, default=600)
    args = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    loop = Loop(args.model, args.device)
    loop.block(30)  # first allocations, before anything is compared
    sampler = subprocess.Popen([sys.executable, "-c", _SAMPLER, str(os.getpid())], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    sampler.stdout.readline()  # its start-up (imports) must not overlap the timed steps
    os.kill(sampler.pid, signal.SIGSTOP)
    wall_ratios, cpu_ratios, added_wall, added_cpu = [], [], [], []
    plain_wall, probe_wall, plain_total, probe_total = [], [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.pairs):
                order = ("plain", "probe") if i % 2 == 0 else ("probe", "plain")
                result = {}
                for mode in order:
                    if mode == "plain":
                        result[mode] = loop.block(args.steps)
                    else:
                        work = Path(tmp) / f"block{i}"
                        work.mkdir()
                        if args.only == "sham":
                            result[mode] = sham(loop, args.steps, args.sham_iterations)
                        else:
                            result[mode] = probed(loop, args.steps, work, sampler, hooks=args.only != "samplers",
                                                  sampling=args.only != "hooks")
                (pw, pc, pt), (qw, qc, qt) = result["plain"], result["probe"]
                plain_total.append(pt)
                probe_total.append(qt)
                wall_ratios.append(qw / pw)
                cpu_ratios.append(qc / pc)
                added_wall.append(qw - pw)
                added_cpu.append(qc - pc)
                plain_wall.append(pw)
                probe_wall.append(qw)
    finally:
        os.kill(sampler.pid, signal.SIGCONT)
        sampler.communicate("")
    print(json.dumps({
        "model": args.model, "device": args.device, "pairs": args.pairs, "steps": args.steps,
        "threads": args.threads,
        "probe_parts": args.only or "hooks and samplers",
        "plain_steps_per_s": 1 / statistics.median(plain_wall),
        "probe_steps_per_s": 1 / statistics.median(probe_wall),
        "wall_ratio_q": quartiles(wall_ratios),
        "wall_ratio_ci95": median_ci(wall_ratios),
        "cpu_ratio_q": quartiles(cpu_ratios),
        "added_wall_us_q": [v * 1e6 for v in quartiles(added_wall)],
        "added_wall_us_ci95": [v * 1e6 for v in median_ci(added_wall)],
        "added_cpu_us_q": [v * 1e6 for v in quartiles(added_cpu)],
        "throughput_ratio": sum(probe_total) / sum(plain_total),
        "throughput_ratio_ci95": ratio_of_sums_ci(probe_total, plain_total),
        "added_mean_us": (sum(probe_total) - sum(plain_total)) / (len(probe_total) * args.steps) * 1e6,
    }))


if __name__ == "__main__":
    main()
