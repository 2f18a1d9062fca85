"""Run the real `trainprobe diagnose` CLI on a script, as a user would, and load what it saved."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

from trainprobe.probe.frames import is_trainprobe
from trainprobe.record import RunRecord

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "tests" / "scripts"
# Short windows: the tests check behaviour, not figures.
FAST = ["--warmup-steps", "2", "--window", "1"]
# For a short script whose test is not about the windows: windows it fits in, so it runs once (a script
# that ends before its windows is run again with fitted ones), to its end, without the profilers.
ONE_RUN = ["--full", "--warmup-steps", "2", "--steps", "3", "--no-profile"]


def trainprobe_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "trainprobe", *args]


def diagnose(out: Path, *args: str, stdin: Optional[str] = None, cwd: Optional[Path] = None,
             env: Optional[dict] = None, timeout: float = 180) -> tuple[subprocess.CompletedProcess, RunRecord]:
    cmd = trainprobe_cmd("diagnose", "-q", "-o", str(out), *args)
    proc = subprocess.run(cmd, input=stdin or "", capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=timeout)
    record_path = out / "run.json"
    assert record_path.exists(), f"no run.json\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc, RunRecord.load(record_path)


def plain_python(*args: str, stdin: Optional[str] = None, cwd: Optional[Path] = None,
                 env: Optional[dict] = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], input=stdin or "", capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def parity_line(stdout: str) -> dict:
    for line in stdout.splitlines():
        if line.startswith("PARITY "):
            return json.loads(line[len("PARITY "):])
    raise AssertionError(f"no PARITY line in:\n{stdout}")


_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+', re.MULTILINE)


def own_frames(traceback_text: str) -> list[str]:
    """The files of a printed traceback's frames that are trainprobe's own code or runpy's: found by the
    package's real folder, not by a word, since the clone itself may sit in a folder named trainprobe."""
    return [path for path in _FRAME.findall(traceback_text or "")
            if is_trainprobe(path) or path.startswith("<frozen runpy") or os.path.basename(path) == "runpy.py"]
