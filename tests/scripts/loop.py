"""A small training loop with knobs for the probe tests.

--epochs N, --workers N, --context fork|spawn, --ending {none,crash,kill,hang,os_exit}, --at STEP (when
the ending happens), --swallow (bare except around each step), --finally-file PATH (written in a finally block:
proves a clean stop ran it), --anomaly [per-step] (anomaly detection on; per-step: only around each step's forward
and backward, as torchtnt's AutoUnit(detect_anomaly=True) does), --output-dir DIR (made at the start; the script
refuses to run when it exists already, as many training scripts do to keep a run's results), --resume-from PATH
(a checkpoint written after the last epoch; a run that finds it resumes there and trains nothing, as Lightning
scripts with auto-resume do: solo-learn's in test set 16).
"""
import argparse
import os
import signal
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 512

    def __getitem__(self, i):
        x = torch.full((16,), float(i % 7))
        return x, i % 4


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--context", default=None)
    p.add_argument("--ending", default="none")
    p.add_argument("--at", type=int, default=10)
    p.add_argument("--swallow", action="store_true")
    p.add_argument("--finally-file")
    p.add_argument("--step-sleep", type=float, default=0.0)
    p.add_argument("--anomaly", nargs="?", const="on", default=None)
    p.add_argument("--output-dir")
    p.add_argument("--resume-from")
    args = p.parse_args()
    if args.output_dir:
        if os.path.exists(args.output_dir):
            raise RuntimeError("Output directory %s already exists" % args.output_dir)
        os.makedirs(args.output_dir)
    if args.anomaly == "on":
        torch.autograd.set_detect_anomaly(True)
    loader = DataLoader(Squares(), batch_size=16, num_workers=args.workers,
                        multiprocessing_context=args.context if args.workers else None)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    step = 0
    done = torch.load(args.resume_from)["epochs"] if args.resume_from and os.path.exists(args.resume_from) else 0
    try:
        for _ in range(done, args.epochs):
            batches = iter(loader)
            while True:
                try:  # the fetch too: trainprobe's stop may come from either
                    x, y = next(batches)
                    opt.zero_grad()
                    with torch.autograd.set_detect_anomaly(args.anomaly == "per-step" or torch.is_anomaly_enabled()): torch.nn.functional.cross_entropy(model(x), y).backward()  # noqa: E501,E701
                    opt.step()
                except StopIteration:
                    break
                except:  # noqa: E722  (the point of --swallow)
                    if not args.swallow:
                        raise
                step += 1
                time.sleep(args.step_sleep)
                if step == args.at:
                    if args.ending == "crash":
                        raise RuntimeError("planted failure at step %d" % step)
                    if args.ending == "kill":
                        os.kill(os.getpid(), signal.SIGKILL)
                    if args.ending == "hang":
                        time.sleep(600)
                    if args.ending == "os_exit":
                        os._exit(0)
        if args.resume_from:
            torch.save({"epochs": args.epochs, "model": model.state_dict()}, args.resume_from)
    finally:
        if args.finally_file:
            with open(args.finally_file, "w") as fh:
                fh.write(str(step))
    print("finished", step)


if __name__ == "__main__":
    main()
