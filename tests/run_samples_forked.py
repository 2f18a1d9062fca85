"""Run sample scripts as ``python SCRIPT ARGS...`` would, each in a child forked from one process
that imported torch and torchvision once (a second or more of every plain start on our 2-core
machines, most of a three-step sample's run).

    python tests/run_samples_forked.py OUT.json ARGS -- SCRIPT...

Each child takes the script's folder as sys.path[0], its path as sys.argv[0] and ``__main__`` as
its module name, as ``python SCRIPT`` does, and runs it with runpy. Its exit status (SystemExit
codes as Python gives them, 1 for an uncaught exception with the traceback on its stderr) and the
last of its stderr go into OUT.json, one entry per script.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import tempfile
import traceback


def _run_child(script: str, args: list[str], stderr_path: str) -> None:
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - reported as python reports it
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main() -> None:
    out, rest = sys.argv[1], sys.argv[2:]
    split = rest.index("--")
    args, scripts = rest[:split], rest[split + 1:]
    import torch  # noqa: F401 - imported once, before the forks
    import torch._dynamo  # noqa: F401 - which torch imports at a script's first optimizer (another second)
    import torchvision  # noqa: F401

    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, script in enumerate(scripts):
            stderr_path = os.path.join(tmp, f"{i}.err")
            pid = os.fork()
            if pid == 0:
                _run_child(script, args, stderr_path)
            _, status = os.waitpid(pid, 0)
            with open(stderr_path, encoding="utf-8", errors="replace") as f:
                stderr = f.read()[-2000:]
            results[script] = {"returncode": os.waitstatus_to_exitcode(status), "stderr": stderr}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
