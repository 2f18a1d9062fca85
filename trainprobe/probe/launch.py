"""The parent: start the child, watch it from outside, and always leave a record.

The child inherits the terminal (stdin, stdout, stderr) so the script talks
to the user as it would under plain python. The parent samples the child's
process tree and the GPUs, follows the child's event stream for the progress
display, rewrites ``run.json`` every few seconds, and turns however the run
ends (normal end, crash, Ctrl-C, a kill, a timeout) into the record's outcome.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional, Sequence

from ..version import __version__
from ..interrupts import interrupts_held
from ..jsonio import write_problem
from ..record import Environment, Invocation, Outcome, RunRecord, Samples
from ..record_file import write_record
from .assemble import EventFollower, assemble_record
from .child import BOOTSTRAP
from .config import CONFIG_ENV, ChildConfig, WindowPlan, window_progress
from .outcome import build_outcome, oom_kill_count
from .plugins import PluginSpec
from .redact import redact_args

__all__ = ["ProbeOptions", "ProbeResult", "ProbeStartError", "run_probe", "default_out_dir", "invocation_for",
           "collect_environment", "kill_tree", "ForwardedSignals"]

_PARTIAL_EVERY = 5.0  # seconds between partial run.json writes
_GRACE = 5.0  # seconds a terminated child gets before SIGKILL


@dataclass(frozen=True)
class ProbeOptions:
    out_dir: Path
    plan: WindowPlan = field(default_factory=WindowPlan)
    timeout: Optional[float] = None
    interval: float = 0.1
    trace_path: Optional[Path] = None
    plugins: tuple[PluginSpec, ...] = ()  # code that acts at the hooks' points (see probe/plugins.py)
    python: str = sys.executable
    data_paths: tuple[str, ...] = ()
    child_output: Optional[Path] = None  # send the script's stdout/stderr here instead of the terminal
    keep_args: bool = False  # save secret-looking argument values as they are (--keep-args)


class ProbeStartError(Exception):
    """The probe could not start the script (nothing was measured); one sentence."""


@dataclass(frozen=True)
class ProbeResult:
    record: RunRecord
    record_path: Path
    problems: tuple[str, ...] = ()  # what could not be saved (a full disk), in words
    record_saved: bool = True  # False: run.json on disk is the last partial record, or none
    interrupted: bool = False  # Ctrl-C after the script ended, while its record was saved


def default_out_dir(target: Sequence[str], base: Path = Path("trainprobe-runs")) -> Path:
    """A fresh folder per run, made here: ``trainprobe-runs/<script>-<timestamp>[-N]``; never an earlier
    run's, nor another run's started in the same second (the folder is claimed by creating it, which
    only one process can do)."""
    name = target[1] if target and target[0] == "-m" else Path(target[0]).stem if target else "run"
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        candidate = base / (f"{name}-{stamp}" if n == 1 else f"{name}-{stamp}-{n}")
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            n += 1


def kill_tree(pid: int, sig: int) -> None:
    try:
        import psutil

        parent = psutil.Process(pid)
        procs = parent.children(recursive=True) + [parent]
    except Exception:
        procs = []
    for proc in procs:
        try:
            proc.send_signal(sig)
        except Exception:
            pass


def invocation_for(target: Sequence[str], options: ProbeOptions, t0: float) -> Invocation:
    module = target[1] if target and target[0] == "-m" else None
    script = None if module else str(Path(target[0]).resolve())
    args = tuple(target[2:] if module else target[1:])
    redacted: tuple[str, ...] = ()
    if not options.keep_args:
        args, redacted = redact_args(args)
    head = ["-m", module] if module else [target[0]]
    return Invocation(
        script=script,
        module=module,
        args=args,
        redacted=redacted,
        cwd=os.getcwd(),
        command_line=shlex.join(["python", *head, *args]),
        started_at=_dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        t0_monotonic=t0,
        python_executable=options.python,
        trainprobe_version=__version__,
        options={
            "plan": options.plan.to_dict(),
            "timeout": options.timeout,
            "interval": options.interval,
            "plugins": [p.to_dict() for p in options.plugins],
        },
    )


def collect_environment(data_paths: Sequence[str]) -> Environment:
    try:
        from ..machine import collect_environment

        return collect_environment(data_paths=tuple(data_paths), include_torch=False)
    except Exception:
        import platform

        return Environment(python=platform.python_version(), platform=platform.platform())


class _Progress:
    """Turns the child's events into a few progress lines (phase changes only)."""

    def __init__(self, report: Callable[[str], None]) -> None:
        self.report = report
        self.seen_windows = 0
        self.first_step = False
        self.stop_reported = False

    def update(self, child) -> None:
        if child.steps and not self.first_step:
            self.first_step = True
            self.report(f"first training step after {child.steps[0].start + child.steps[0].duration:.1f} s; warming up")
        for event in child.windows[self.seen_windows:]:
            label = window_progress(event)
            if label:
                self.report(f"{label} (step {event.get('step')})")
        self.seen_windows = len(child.windows)
        if child.stop_requested and not self.stop_reported:
            self.stop_reported = True
            self.report(f"stopping the script: {child.stop_requested}")


def run_probe(target: Sequence[str], options: ProbeOptions,
              progress: Callable[[str], None] = lambda line: None) -> ProbeResult:
    """Run ``target`` (["script.py", *args] or ["-m", "mod", *args]) under the probe."""
    from .samplers import start_sampling

    try:
        run = _Run(target, options, progress)
        proc = run.start_child()
    except OSError as exc:  # a full disk or an unusable python, before the script ran
        where = exc.filename or options.out_dir
        raise ProbeStartError(f"{write_problem(where, exc)}; the script was not started") from None
    sampling = start_sampling(proc.pid, run.t0, options.interval)
    with ForwardedSignals(proc.pid) as signals:
        returncode = run.watch(proc, sampling)
    end = time.monotonic()
    with interrupts_held() as late:  # the script has ended: a Ctrl-C now must not cost its record
        # DataLoader workers orphaned by a killed child exit by their own watchdog within ~5 s.
        samples = sampling.stop()
        result = run.finish(returncode, samples, end, interrupted=signals.interrupts > 0)
    return replace(result, interrupted=bool(late)) if late else result


class ForwardedSignals:
    """While the script runs, Ctrl-C and SIGTERM reach it as they would under plain python.

    The child gets the same Ctrl-C (same process group) and ends the script as
    python would; a second Ctrl-C ends it outright. A SIGTERM to trainprobe is
    passed on to the child's process tree.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.interrupts = 0
        self._previous: dict = {}

    def _on_sigint(self, signum, frame) -> None:
        self.interrupts += 1
        if self.interrupts >= 2:
            kill_tree(self.pid, signal.SIGKILL)

    def _on_sigterm(self, signum, frame) -> None:
        kill_tree(self.pid, signal.SIGTERM)

    def __enter__(self) -> "ForwardedSignals":
        for sig, handler in ((signal.SIGINT, self._on_sigint), (signal.SIGTERM, self._on_sigterm)):
            try:
                if signal.getsignal(sig) == signal.SIG_IGN:
                    # Started with it ignored (a background job): so was the script, as under plain python,
                    # and trainprobe ignores it too.
                    continue
                self._previous[sig] = signal.signal(sig, handler)
            except ValueError:  # not the main thread (e.g. called from a notebook thread)
                pass
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


class _Run:
    """One probed run, from the child's start to the saved record."""

    def __init__(self, target: Sequence[str], options: ProbeOptions, progress: Callable[[str], None]) -> None:
        self.target = tuple(target)
        self.options = options
        self.progress = progress
        self.out = Path(options.out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.record_path = self.out / "run.json"
        self.events_path = self.out / "events.jsonl"
        self.oom_kills_at_start = oom_kill_count()
        self.t0 = time.monotonic()
        self.invocation = invocation_for(target, options, self.t0)
        self.script_dir = os.path.dirname(self.invocation.script) if self.invocation.script else os.getcwd()
        self.user_dirs = tuple({self.script_dir, os.getcwd()})
        self.environment: Optional[Environment] = None
        self.timed_out = False
        self.follower = EventFollower(str(self.events_path))
        self.progress_view = _Progress(progress)
        self.last_saved: Optional[tuple[int, float]] = None  # (steps, seconds) of the last partial record

    def start_child(self) -> subprocess.Popen:
        options = self.options
        config = ChildConfig(
            argv=self.target, out_dir=str(self.out.resolve()), events_path=str(self.events_path.resolve()),
            t0=self.t0, plan=options.plan,
            trace_path=str(options.trace_path.resolve()) if options.trace_path else None, plugins=tuple(options.plugins),
        )
        config_path = self.out / "child-config.json"
        config.save(config_path)
        self.config = (config, config_path)
        env = os.environ.copy()
        env[CONFIG_ENV] = str(config_path.resolve())
        env.setdefault("KINETO_LOG_LEVEL", "5")  # silence Kineto's GPU probing on machines without one
        package_parent = str(Path(__file__).resolve().parents[2])
        output = open(options.child_output, "ab") if options.child_output else None
        try:
            return subprocess.Popen([options.python, "-c", BOOTSTRAP, package_parent], env=env,
                                    stdout=output, stderr=subprocess.STDOUT if output else None,
                                    stdin=subprocess.DEVNULL if output else None)
        finally:
            if output is not None:
                output.close()  # the child holds its own copy

    def watch(self, proc: subprocess.Popen, sampling) -> int:
        """Follow the child until it ends (or --timeout ends it); its return code."""
        last_partial = time.monotonic()
        partial_every = _PARTIAL_EVERY
        while True:
            try:
                return proc.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            child = self.follower.poll()
            self.progress_view.update(child)
            if self.environment is None:
                # Collected while the script starts up: it costs the parent, not the training.
                self.environment = collect_environment(self.options.data_paths or (self.script_dir,))
            if self._past_timeout(now):
                returncode = self._end_timed_out(proc)
                if returncode is not None:
                    return returncode
            if now - last_partial > partial_every:
                if _write_partial(self.record_path, self.invocation, self.environment, child, sampling.snapshot(),
                                  self.out, self.user_dirs, self.t0):
                    self.last_saved = (len(child.steps), now - self.t0)
                last_partial = time.monotonic()
                # A long run's record grows: keep partial writes under ~10% of the parent's time.
                partial_every = max(_PARTIAL_EVERY, 10 * (last_partial - now))

    def _past_timeout(self, now: float) -> bool:
        timeout = self.options.timeout
        return timeout is not None and now - self.t0 > timeout and not self.timed_out

    def _end_timed_out(self, proc: subprocess.Popen) -> Optional[int]:
        """SIGTERM, a grace period, then SIGKILL; the return code if it ended within the grace."""
        self.timed_out = True
        self.progress(f"the script ran past --timeout ({self.options.timeout:g} s): ending it")
        kill_tree(proc.pid, signal.SIGTERM)
        try:
            return proc.wait(timeout=_GRACE)
        except subprocess.TimeoutExpired:
            kill_tree(proc.pid, signal.SIGKILL)
            return None  # reaped by the watch loop

    def _forget_secrets(self) -> None:
        """The child has read its argv: the copy left in the run folder gets the redacted one."""
        config, path = self.config
        head = self.target[:2] if self.invocation.module else self.target[:1]
        try:
            dataclasses.replace(config, argv=tuple(head) + self.invocation.args).save(path)
        except OSError:
            try:
                path.unlink()
            except OSError:
                pass

    def finish(self, returncode: int, samples: Samples, end: float, interrupted: bool) -> ProbeResult:
        if self.invocation.redacted:
            self._forget_secrets()
        child = self.follower.poll()
        self.progress_view.update(child)
        data_paths = self.options.data_paths
        found = [p for p in child.data_paths if p not in data_paths]
        environment = self.environment
        if environment is None or found:
            # The datasets' own roots (torchvision datasets have .root) tell where the data lives.
            environment = collect_environment(tuple(data_paths) + tuple(found) or (self.script_dir,))
        first = child.clock.get("first_activity")
        if first is None and child.steps:
            first = child.steps[0].start
        kills = oom_kill_count()
        oom_killed = None if kills is None or self.oom_kills_at_start is None else kills > self.oom_kills_at_start
        outcome = build_outcome(returncode, child.outcome, self.timed_out, interrupted, end - self.t0, first,
                           child.stop_requested, oom_killed)
        extra = () if child.started else ("the child process ended before trainprobe could start the script",)
        record = assemble_record(
            invocation=self.invocation, environment=environment, child=child, samples=samples, outcome=outcome,
            out_dir=str(self.out), user_dirs=self.user_dirs, final=True, extra_notes=extra,
        )
        lost = write_record(record, self.record_path)
        if lost is not None:
            # The record stays in memory for the verdict; on disk, the last complete partial one stands.
            kept = (f"the last complete record ({self.last_saved[0]} steps, written {self.last_saved[1]:.0f} s "
                    f"into the run) is kept there" if self.last_saved else "no complete record could be kept")
            problem = f"{lost}: {kept}; the verdict printed is from memory"
            return ProbeResult(record=record, record_path=self.record_path, problems=(problem,),
                               record_saved=False)
        return ProbeResult(record=record, record_path=self.record_path)


def _write_partial(path: Path, invocation: Invocation, environment: Optional[Environment], child,
                   samples: Samples, out: Path, user_dirs: tuple[str, ...], t0: float) -> bool:
    """Save the record as it stands; whether it was saved."""
    try:
        outcome = Outcome(status="running", reason="the run was still going when this record was written",
                          duration=time.monotonic() - t0)
        record = assemble_record(
            invocation=invocation, environment=environment or Environment(), child=child, samples=samples,
            outcome=outcome, out_dir=str(out), user_dirs=user_dirs, final=False,
        )
        return write_record(record, path) is None
    except Exception:
        return False  # a partial record is a bonus; never let it break the run
