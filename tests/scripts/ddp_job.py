"""A small DDP job for torchrun (gloo, CPU), with planted problems chosen by flags.

    torchrun --nproc-per-node 2 tests/scripts/ddp_job.py [--slow-rank 1] [--rank0-work 0.03]
        [--find-unused] [--no-sampler] [--crash-rank 1 --crash-step 8] [--hang-rank 1] [--steps 200]
"""

import argparse
import os
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Numbers(Dataset):
    """Random samples; on the slow rank each sample takes ``delay`` seconds to read."""

    def __init__(self, n: int, delay: float) -> None:
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 64, generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)
        self.delay = delay

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        if self.delay:
            time.sleep(self.delay)
        return self.x[i], self.y[i]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--report-times", action="store_true", help="print this rank's median step (benchmarks)")
    parser.add_argument("--slow-rank", type=int, default=-1)
    parser.add_argument("--slow-ms", type=float, default=40.0, help="per batch, on the slow rank")
    parser.add_argument("--rank0-work", type=float, default=0.0, help="seconds of rank-0-only work per step")
    parser.add_argument("--rank0-eval-every", type=int, default=0,
                        help="every N steps rank 0 alone evaluates (--rank0-eval-ms) while the others wait")
    parser.add_argument("--rank0-eval-ms", type=float, default=200.0)
    parser.add_argument("--find-unused", action="store_true")
    parser.add_argument("--no-sampler", action="store_true")
    parser.add_argument("--crash-rank", type=int, default=-1)
    parser.add_argument("--hang-rank", type=int, default=-1, help="this rank stops answering at --crash-step")
    parser.add_argument("--crash-step", type=int, default=10)
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    delay = args.slow_ms / 1000 / args.batch if rank == args.slow_rank else 0.0
    data = Numbers(args.batch * args.steps * dist.get_world_size(), delay)
    sampler = None if args.no_sampler else DistributedSampler(data, shuffle=True)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler, shuffle=sampler is None)
    model = DDP(nn.Sequential(nn.Linear(64, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 10)),
                find_unused_parameters=args.find_unused)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    times = []
    try:
        last = time.perf_counter()
        for step, (x, y) in enumerate(loader):
            if rank == args.crash_rank and step == args.crash_step:
                raise ValueError(f"planted failure on rank {rank} at step {step}")
            if rank == args.hang_rank and step == args.crash_step:
                time.sleep(3600)  # a hang: the other ranks wait in their next collective
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            if rank == 0 and args.rank0_work:
                time.sleep(args.rank0_work)  # logging, a checkpoint: work only rank 0 does
            if rank == 0 and args.rank0_eval_every and (step + 1) % args.rank0_eval_every == 0:
                time.sleep(args.rank0_eval_ms / 1000)  # an evaluation on rank 0 alone, every N steps
            now = time.perf_counter()
            times.append(now - last)
            last = now
            if step + 1 >= args.steps:
                break
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    if args.report_times and len(times) > 10:
        steady = sorted(times[10:])
        print(f"rank {rank} median step {steady[len(steady) // 2] * 1000:.3f} ms over {len(steady)} steps", flush=True)
    if rank == 0:
        print(f"done: {step + 1} steps on {os.environ.get('WORLD_SIZE')} ranks")


if __name__ == "__main__":
    main()
