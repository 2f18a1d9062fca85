"""However the script ends, the record keeps what was measured and says how it ended."""

import json
import os
import signal
import subprocess
import time

import pytest

from probe_helpers import FAST, ONE_RUN, SCRIPTS, diagnose, own_frames, trainprobe_cmd
from trainprobe.probe.events import read_events
from trainprobe.record import RunRecord

LOOP = str(SCRIPTS / "loop.py")

# Every test here runs a script under the probe in a child process: seconds each.
pytestmark = pytest.mark.slow


def test_clean_early_stop_runs_the_scripts_finally(tmp_path):
    marker = tmp_path / "finally.txt"
    proc, record = diagnose(tmp_path / "out", *FAST, LOOP, "--finally-file", str(marker))
    assert proc.returncode == 0, proc.stderr
    assert record.outcome.status == "stopped"
    assert marker.exists()
    # The first iteration can count as two steps while the probe learns the boundary kind.
    assert 0 <= len(record.steps) - int(marker.read_text()) <= 2
    phases = {s.phase for s in record.steps}
    assert {"warmup", "steady", "profiled", "cprofile"} <= phases
    assert record.profiler.availability.available
    assert record.hotspots.availability.available
    assert "finished" not in proc.stdout  # it did not run its 1000 epochs


def test_crash_keeps_steps_and_shows_only_the_scripts_frames(tmp_path):
    proc, record = diagnose(tmp_path / "out", *FAST, LOOP, "--ending", "crash", "--at", "7")
    assert proc.returncode == 1
    assert record.outcome.status == "failed"
    assert record.outcome.exception_type == "RuntimeError"
    assert "planted failure at step 7" in record.outcome.traceback
    assert own_frames(record.outcome.traceback) == [], record.outcome.traceback
    assert 'loop.py", line' in record.outcome.traceback  # the script's own frames are kept
    assert "planted failure at step 7" in proc.stderr  # printed as python prints it
    assert len(record.steps) >= 6
    assert (tmp_path / "out" / "report.html").exists()


def test_sigkill_keeps_what_was_measured(tmp_path):
    proc, record = diagnose(tmp_path / "out", *FAST, LOOP, "--ending", "kill", "--at", "12", "--step-sleep", "0.05")
    assert record.outcome.status == "killed"
    assert record.outcome.signal == "SIGKILL"
    assert proc.returncode == 137
    # A kill -9 is not out of memory unless the kernel's OOM killer says so.
    assert not record.outcome.oom and "sender unknown" in record.outcome.reason
    # Steps reach the disk in batches at most FLUSH_EVERY (0.2 s) apart: with 50 ms steps,
    # a kill loses at most the last few.
    assert len(record.steps) >= 12 - 1 - 5


def test_os_exit_keeps_steps(tmp_path):
    proc, record = diagnose(tmp_path / "out", *ONE_RUN, LOOP, "--ending", "os_exit", "--at", "9")
    assert proc.returncode == 0
    assert len(record.steps) >= 8  # os._exit writes out the buffered steps first
    assert any("os._exit(0)" in note for note in record.notes)


def test_timeout_ends_a_hung_script(tmp_path):
    start = time.monotonic()
    proc, record = diagnose(tmp_path / "out", *FAST, "--timeout", "10", LOOP, "--ending", "hang", "--at", "5")
    assert time.monotonic() - start < 60
    assert record.outcome.status == "timeout"
    assert proc.returncode == 124
    assert len(record.steps) >= 4


def test_swallowed_stop_still_ends_cleanly(tmp_path):
    proc, record = diagnose(tmp_path / "out", *FAST, LOOP, "--swallow")
    assert proc.returncode == 0
    assert record.outcome.status == "stopped"
    assert any("caught trainprobe's stop request" in n for n in record.notes)


def test_ctrl_c_is_an_interruption_with_a_record(tmp_path):
    out = tmp_path / "out"
    cmd = trainprobe_cmd("diagnose", "-q", "-o", str(out), "--full", LOOP)
    # Its own session, so that the Ctrl-C (SIGINT to the foreground group) reaches only this run.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    events = out / "events.jsonl"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if events.exists() and sum(1 for e in read_events(events) if e.get("type") == "step") >= 5:
            break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    record = RunRecord.load(out / "run.json")
    assert record.outcome.status == "interrupted", stderr
    assert proc.returncode == 130
    assert "KeyboardInterrupt" in stderr
    assert len(record.steps) >= 5


def test_partial_record_is_written_while_running(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(trainprobe_cmd("diagnose", "-q", "-o", str(out), "--full", LOOP, "--epochs", "3000"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        partial = None
        while time.monotonic() < deadline:
            if (out / "run.json").exists():
                partial = json.loads((out / "run.json").read_text())
                if partial["steps"]:
                    break
            time.sleep(0.5)
        assert partial is not None and partial["outcome"]["status"] == "running"
        assert partial["steps"]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
