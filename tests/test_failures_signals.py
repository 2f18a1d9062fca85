"""Ctrl-C at the edges of a run: while trainprobe sets up (before the script starts), and a
background job started with SIGINT ignored. Each behaves as plain python would, without a
traceback through trainprobe's frames."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from probe_helpers import own_frames

pytestmark = pytest.mark.slow

TRAIN = '''
import time, torch
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
end = time.monotonic() + 4
while time.monotonic() < end:
    opt.zero_grad()
    model(torch.randn(16, 8)).sum().backward()
    opt.step()
    time.sleep(0.01)
print("trained to the end")
'''


def _events(out: Path) -> list[dict]:
    try:
        lines = (out / "events.jsonl").read_text().splitlines()
    except OSError:
        return []
    return [json.loads(line) for line in lines if line.endswith("}")]


def _wait_for(out: Path, kind: str, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(e.get("type") == kind for e in _events(out)):
            return
        time.sleep(0.02)
    raise AssertionError(f"no {kind} event within {timeout} s")


def _trainprobe(args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "trainprobe", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kwargs)


def test_ctrl_c_while_trainprobe_sets_up_is_an_interruption_without_its_frames(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    out = tmp_path / "run"
    proc = _trainprobe(["diagnose", "-o", str(out), str(script)])
    _wait_for(out, "started")  # the child runs; it imports torch before the script starts
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert own_frames(stderr) == [], stderr
    assert "trained to the end" not in stdout
    record = json.loads((out / "run.json").read_text())
    assert record["outcome"]["status"] == "interrupted"
    assert (out / "report.html").exists()


def test_a_background_job_with_ctrl_c_ignored_ignores_it_as_python_does(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    out = tmp_path / "run"
    # `trainprobe diagnose ... &` from a script: the shell starts it with SIGINT ignored.
    proc = _trainprobe(["diagnose", "--full", "-o", str(out), str(script)],
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    _wait_for(out, "step")
    for _ in range(2):  # two: trainprobe's second Ctrl-C would end the script at once
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.3)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "trained to the end" in stdout
    assert json.loads((out / "run.json").read_text())["outcome"]["status"] == "completed"
