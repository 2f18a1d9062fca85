"""A full disk: trainprobe says so, keeps the last complete record, prints the verdict from memory
and exits non-zero; the user's script is never ended by trainprobe's own failed write.

The end-to-end test fills a real 200 KiB tmpfs where the machine lets us mount one (root on Linux);
elsewhere the disk is faked at the one place it matters, the write of a file, with ENOSPC.
"""

from __future__ import annotations

import errno
import json
import re
import subprocess
from pathlib import Path

import pytest

from trainprobe.cli import main
from trainprobe.jsonio import write_problem
from trainprobe.probe.events import EventSink

SCRIPT = Path(__file__).parent / "scripts" / "loop.py"
ARGS = ["--full", "--warmup-steps", "2", "--window", "1", "--no-profile"]


def test_the_event_stream_stops_writing_on_a_full_disk_instead_of_raising_in_the_users_step():
    # /dev/full is a real device that answers every write with ENOSPC.
    sink = EventSink("/dev/full")
    sink.emit("note", text="x" * 10_000)
    sink.emit_step((1, 2.0, 3.0))
    sink.flush()
    sink.close()
    assert sink.write_error is not None and sink.write_error.errno == errno.ENOSPC


def test_a_full_disk_is_named_as_such():
    assert write_problem("/x/run.json", OSError(errno.ENOSPC, "No space left on device")) == \
        "disk full while writing /x/run.json"
    assert write_problem("/x/run.json", OSError(errno.EACCES, "Permission denied")) == \
        "could not write /x/run.json (Permission denied)"


def _small_tmpfs(path: Path) -> bool:
    path.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(path)],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _inject_a_full_disk(monkeypatch) -> None:
    """Every write of a finished record or a report fails as on a full disk; the partial records the
    probe writes while the script runs still succeed (the disk filled up late in the run)."""
    from trainprobe import jsonio

    real = jsonio.write_text_atomic

    def full(path, text):
        name = Path(path).name
        partial = name == "run.json" and '"reason": "the run was still going' in text.replace('":"', '": "')
        if name not in ("run.json", "report.html", "summary.json", "diagnosis.json") or partial:
            return real(path, text)
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(jsonio, "write_text_atomic", full)
    import trainprobe.report.html as html

    if hasattr(html, "write_text_atomic"):
        monkeypatch.setattr(html, "write_text_atomic", full)


@pytest.mark.slow
@pytest.mark.parametrize("disk", ["tmpfs", "injected"])
def test_a_disk_that_fills_up_keeps_the_last_record_prints_the_verdict_and_exits_non_zero(
        tmp_path, capsys, monkeypatch, disk):
    where = tmp_path / "small"
    if disk == "tmpfs":
        if not _small_tmpfs(where):
            pytest.skip("this machine does not let the test mount a tmpfs")
    else:
        where.mkdir()
        _inject_a_full_disk(monkeypatch)
    out = where / "run"
    try:
        code = main(["diagnose", "-o", str(out), *ARGS, str(SCRIPT), "--epochs", "10",
                     "--step-sleep", "0.01"])
        said = capsys.readouterr()
        assert code == 1, said.err
        assert "Traceback" not in said.out + said.err
        assert f"disk full while writing {out / 'run.json'}" in said.err
        assert "the verdict printed is from memory" in said.err
        assert "step time" in said.out  # the verdict, from memory
        # The last complete partial record (written 5 s into the run), never a torn file; a tmpfs may fill
        # up before the first one. What the message says was kept is what is on disk: on a slow machine
        # the first partial record can come before the script's first step, and then it holds none.
        assert disk == "tmpfs" or (out / "run.json").exists()
        if (out / "run.json").exists():
            kept = json.loads((out / "run.json").read_text())
            said_kept = re.search(r"the last complete record \((\d+) steps, written", said.err)
            assert kept["outcome"]["status"] == "running" and said_kept, said.err
            assert len(kept["steps"]) == int(said_kept.group(1))
            assert disk == "tmpfs" or kept["steps"]  # the injected disk fills only at the end
        else:
            assert "no complete record could be kept" in said.err
    finally:
        if disk == "tmpfs":
            subprocess.run(["umount", str(where)], capture_output=True, timeout=10)
