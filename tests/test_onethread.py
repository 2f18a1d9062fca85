"""cProfile kept to the training thread (trainprobe/probe/onethread.py).

From Python 3.12 cProfile hears every thread's calls through sys.monitoring and pushes them all on
one call stack: on an H200 (Python 3.12.3) the probe's own event-flushing thread, waking while the
loop waited in backward, had 18 of the loop's 49 torch.randn calls charged to Tensor.backward. The
script below makes the same shape without torch: a thread calling Python while the profiled thread
sleeps in C. Run on this Python and on every Python 3.12+ this machine has (none may be installed in
CI: the current interpreter's run is then the only one).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ONETHREAD = Path(__file__).resolve().parents[1] / "trainprobe" / "probe" / "onethread.py"

SCRIPT = r'''
import cProfile, importlib.util, json, math, pstats, sys, threading, time
spec = importlib.util.spec_from_file_location("onethread", sys.argv[1])
onethread = importlib.util.module_from_spec(spec); spec.loader.exec_module(onethread)

def beside(): return sum(range(50))
def other_thread():
    while not done.is_set():
        beside(); time.sleep(0.0003)
done = threading.Event()
threading.Thread(target=other_thread, daemon=True).start()

box = {}
def at_step(i):  # the window opens inside a hook, as the probe's does
    if i == 10:
        box["p"] = cProfile.Profile(); box["p"].enable()
        box["note"] = onethread.keep_to_this_thread(box["p"])
    if i == 60:
        box["p"].disable()
def wait_in_c(): time.sleep(0.001)
def loop():
    for i in range(100):
        wait_in_c()
        math.sqrt(i)  # called by the loop's own frame, which started before the window
        at_step(i)
loop(); done.set()
rows = {k[2]: (v[1], {c[2]: e[0] for c, e in v[4].items()}) for k, v in pstats.Stats(box["p"]).stats.items()}
print(json.dumps({"note": box["note"], "rows": rows}))
'''


def _pythons() -> list[str]:
    found = [sys.executable]
    for name in ("python3.12", "python3.13", "python3.14"):
        path = shutil.which(name)
        if path and "/shims/" not in path:  # a pyenv shim answers for versions that are not selected
            found.append(path)
    found += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python")))
    unique: dict[str, str] = {}
    for path in found:
        unique.setdefault(os.path.realpath(path), path)
    return list(unique.values())


@pytest.mark.parametrize("python", _pythons())
def test_the_profile_holds_the_training_threads_calls_only(python, tmp_path):
    script = tmp_path / "threads.py"
    script.write_text(SCRIPT)
    proc = subprocess.run([python, str(script), str(ONETHREAD)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    rows = out["rows"]
    assert out["note"] is None
    assert rows["<built-in method math.sqrt>"] == [50, {}]  # all from the loop's own frame
    assert rows["wait_in_c"][0] == 50
    assert rows["<built-in method time.sleep>"] == [50, {"wait_in_c": 50}]  # not the other thread's sleeps
    assert "beside" not in rows and "other_thread" not in rows
