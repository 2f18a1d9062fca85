"""The parent of a job: launch it through torchrun, every rank as trainprobe's child.

``trainprobe diagnose --nproc-per-node N [torchrun options] train.py ARGS`` runs
``python -m torch.distributed.run [torchrun options] --no-python python -u -c BOOTSTRAP``:
torchrun (the launcher the user already has) starts, restarts and ends the ranks; each rank runs
the user's script under the probe and writes its own event stream under ``rank<RANK>/``. The
parent samples the whole tree (torchrun's agent and every rank), ends the job at ``--timeout``,
and, when it ends, turns each rank's stream into its record (job/assemble.py).

Every rank follows the same window plan counted in steps, not seconds (job_plan): every rank
stops at the same step, so none is left waiting in a collective for a peer that stopped.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..probe.child import BOOTSTRAP
from ..probe.config import CONFIG_ENV, ChildConfig, WindowPlan
from ..probe.plugins import PluginSpec
from ..probe.ranks import RANK_PLUGIN

__all__ = ["JobLaunch", "TorchrunError", "split_torchrun", "job_plan", "launch_job", "is_torchrun_command"]

_GRACE = 10.0  # seconds torchrun gets to end its ranks after SIGTERM, before SIGKILL
JOB_STEADY_STEPS = 20  # steady steps per rank when --steps is not given
_UNBOUNDED = 1e9  # seconds: a window bound by time never ends by it (JSON has no infinity)


class TorchrunError(Exception):
    """torchrun's options or the job's shape cannot work; one sentence."""


@dataclass(frozen=True)
class JobLaunch:
    """What ran, how it ended, from the launcher's side."""

    out: Path
    torchrun_args: tuple[str, ...]
    target: tuple[str, ...]  # ["script.py", *args] or ["-m", "mod", *args]
    command_line: str
    t0: float
    returncode: int
    timed_out: bool
    interrupted: bool
    duration: float
    samples: object  # record.Samples of the whole tree
    plan: WindowPlan = WindowPlan()  # the plan every rank followed (job_plan)
    timeout: Optional[float] = None


def is_torchrun_command(tokens: Sequence[str]) -> int:
    """How many leading tokens name torchrun (``torchrun`` or ``python -m torch.distributed.run``); 0 if none."""
    if tokens and os.path.basename(tokens[0]) == "torchrun":
        return 1
    if len(tokens) >= 3 and "python" in os.path.basename(tokens[0]) and tokens[1] == "-m" and tokens[2] in (
            "torch.distributed.run", "torch.distributed.launch"):
        return 3
    return 0


def split_torchrun(tokens: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """torchrun's own options and the target (script and its arguments, or -m module), parsed by
    torchrun's own parser so that every option it knows is accepted as it would be."""
    from torch.distributed.run import get_args_parser

    tokens = list(tokens)
    parser = get_args_parser()
    parser.exit_on_error = False
    try:
        args, unknown = parser.parse_known_args(tokens)
    except (SystemExit, Exception) as exc:  # argparse prints its own error on SystemExit
        raise TorchrunError(f"torchrun cannot parse these options: {shlex.join(tokens)} ({exc})") from None
    if unknown:
        raise TorchrunError(f"torchrun does not know {shlex.join(unknown)}: trainprobe's own options (-o, --timeout, "
                            "...) go before --nproc-per-node and torchrun's options, the script after them")
    if args.no_python or args.run_path:
        raise TorchrunError("--no-python and --run-path cannot be probed: trainprobe runs each rank as python would")
    script, rest = args.training_script, list(args.training_script_args)
    for i in range(len(tokens)):
        if tokens[i] == script and tokens[i + 1:] == rest:
            options = [t for t in tokens[:i] if t not in ("-m", "--module")]
            target = ("-m", script, *rest) if args.module else (script, *rest)
            return tuple(options), target
    raise TorchrunError(f"cannot find the training script in: {shlex.join(tokens)}")


def check_cores(torchrun_args: Sequence[str]) -> None:
    """Refuse more ranks on this node than it has cores: each rank needs at least one."""
    from torch.distributed.run import get_args_parser

    try:
        args = get_args_parser().parse_args([*torchrun_args, "x.py"])
        nproc = args.nproc_per_node
    except (SystemExit, Exception):
        return
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    if str(nproc).isdigit() and int(nproc) > cores:
        raise TorchrunError(
            f"--nproc-per-node {nproc} asks for more ranks than this machine has cores ({cores}): each rank "
            f"needs at least one core, and the probe one more. Use --nproc-per-node {max(1, cores - 1)} or fewer "
            f"here, or run on a machine with more cores")


def job_plan(plan: WindowPlan) -> WindowPlan:
    """The window plan counted in steps, the same on every rank: every rank leaves each window, and
    stops, at the same step. A plan by seconds would stop each rank when its own clock said so,
    and leave the others waiting in a collective."""
    return replace(
        plan, warmup_max_seconds=_UNBOUNDED, steady_max_seconds=_UNBOUNDED, steps=plan.steps or JOB_STEADY_STEPS,
        profile_seconds=0.0, profile_max_steps=plan.profile_min_steps,
        cprofile_seconds=0.0, cprofile_max_steps=plan.cprofile_min_steps,
        max_seconds=None,
    )


def launch_job(torchrun_args: Sequence[str], target: Sequence[str], out: Path, plan: WindowPlan,
               timeout: Optional[float], interval: float = 0.2, python: str = sys.executable,
               progress: Callable[[str], None] = lambda line: None,
               child_output: Optional[Path] = None) -> JobLaunch:
    """Run the job to its end (or ``timeout``); what ran and how it ended."""
    from ..probe.launch import ForwardedSignals
    from ..probe.samplers import start_sampling

    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    config = ChildConfig(argv=tuple(target), out_dir=str(out.resolve()),
                         events_path=str((out / "rank0" / "events.jsonl").resolve()), t0=t0,
                         plan=job_plan(plan), job=True, plugins=(PluginSpec(RANK_PLUGIN),))
    config_path = out / "child-config.json"
    config.save(config_path)
    env = os.environ.copy()
    env[CONFIG_ENV] = str(config_path.resolve())
    env.setdefault("KINETO_LOG_LEVEL", "5")
    package_parent = str(Path(__file__).resolve().parents[2])
    command = [python, "-m", "torch.distributed.run", *torchrun_args, "--no-python",
               python, "-u", "-c", BOOTSTRAP, package_parent]
    shown = shlex.join(["torchrun", *torchrun_args, *target])
    progress(f"launching {shown}")
    output = open(child_output, "ab") if child_output else None
    try:
        proc = subprocess.Popen(command, env=env, stdout=output,
                                stderr=subprocess.STDOUT if output else None,
                                stdin=subprocess.DEVNULL if output else None)
    finally:
        if output is not None:
            output.close()
    sampling = start_sampling(proc.pid, t0, interval)
    timed_out = False
    with ForwardedSignals(proc.pid) as signals:
        watch = _Watch(out, progress)
        while True:
            try:
                returncode = proc.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            watch.poll()
            if timeout is not None and time.monotonic() - t0 > timeout and not timed_out:
                timed_out = True
                progress(f"the job ran past --timeout ({timeout:g} s): ending every rank")
                returncode = _end(proc)
                if returncode is not None:
                    break
    end = time.monotonic()
    samples = sampling.stop()
    watch.poll()
    return JobLaunch(out=out, torchrun_args=tuple(torchrun_args), target=tuple(target), command_line=shown,
                     t0=t0, returncode=returncode, timed_out=timed_out, interrupted=signals.interrupts > 0,
                     duration=end - t0, samples=samples, plan=config.plan, timeout=timeout)


def _end(proc: subprocess.Popen) -> Optional[int]:
    """SIGTERM to torchrun and every rank, a grace period, then SIGKILL."""
    from ..probe.launch import kill_tree

    kill_tree(proc.pid, signal.SIGTERM)
    try:
        return proc.wait(timeout=_GRACE)
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid, signal.SIGKILL)
        return None


class _Watch:
    """A few progress lines from the ranks' streams: each rank's first step, and rank 0's windows."""

    def __init__(self, out: Path, progress: Callable[[str], None]) -> None:
        from ..probe.assemble import EventFollower

        self.out = out
        self.progress = progress
        self.followers: dict[str, "EventFollower"] = {}
        self.first: set[str] = set()
        self.ended: set[str] = set()
        self._follower = EventFollower

    def poll(self) -> None:
        for folder in sorted(self.out.glob("rank*")):
            name = folder.name
            follower = self.followers.setdefault(name, self._follower(str(folder / "events.jsonl")))
            child = follower.poll()
            if child.steps and name not in self.first:
                self.first.add(name)
                self.progress(f"{name}: first training step after {child.steps[0].start + child.steps[0].duration:.1f} s")
            if child.outcome and name not in self.ended:
                self.ended.add(name)
                status = child.outcome.get("status")
                error = child.outcome.get("exception_type")
                self.progress(f"{name}: {status}" + (f" ({error})" if error else ""))
