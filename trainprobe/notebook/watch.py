"""The helper process that samples a notebook's kernel from outside while ``%%trainprobe`` runs.

The probe runs in the kernel's own process; the samplers (``probe/samplers``: the machine, the
kernel's process tree, the GPUs) run here, so their threads take nothing from the kernel's
interpreter. The kernel starts this process with a pipe on its stdin and closes the pipe when the
cell ends; this process then writes what it sampled to ``--out`` (a ``Samples`` JSON) and exits.
It also stops when the kernel's process is gone (a restarted kernel leaves no helper behind).
The helper is a child of the kernel, so it leaves itself out of the tree it samples.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

__all__ = ["main", "BOOTSTRAP"]

# argv[1]: the folder holding the trainprobe package, as for the probe's child.
BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv[1]); "
             "from trainprobe.notebook.watch import main; sys.exit(main(sys.argv[2:]))")


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="trainprobe-watch")
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--t0", type=float, required=True)  # the kernel's time.monotonic() at the start
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--out", required=True)
    return parser.parse_args(list(argv))


def _wait_for_end(pid: int) -> None:
    """Until the kernel closes the pipe (or writes to it), or its process ends."""
    import psutil

    while True:
        ready, _, _ = select.select([sys.stdin], [], [], 0.5)
        if ready:
            return
        if not psutil.pid_exists(pid):
            return


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    from ..probe.samplers import start_sampling

    sampling = start_sampling(args.pid, args.t0, args.interval, exclude_pids=frozenset({os.getpid()}))
    try:
        _wait_for_end(args.pid)
    finally:
        samples = sampling.stop()
        out = Path(args.out)
        partial = out.with_name(out.name + ".part")
        samples.save(partial)
        os.replace(partial, out)
    return 0


def wait_briefly(proc, seconds: float) -> Optional[int]:
    """The helper's exit status, waiting at most ``seconds`` (None: still running)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        code = proc.poll()
        if code is not None:
            return code
        time.sleep(0.02)
    return proc.poll()
