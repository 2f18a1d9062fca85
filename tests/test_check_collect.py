"""Collect-side plumbing: child measurements that fail, progress display, colour choice."""

from __future__ import annotations

import io

import pytest

from trainprobe.display import use_color
from trainprobe.readiness.collect import run_bench
from trainprobe.readiness.progress import Progress


def test_failing_child_measurement_gives_a_reason(tmp_path):
    payload, error = run_bench("disk_read", 60, "--data", str(tmp_path))
    assert payload is None
    assert error == f"RuntimeError: no files to read in {tmp_path}"


@pytest.mark.slow  # a second of a child process: kept out of the quick loop
def test_hanging_child_measurement_times_out():
    payload, error = run_bench("train", 1, "--seconds", "60")
    assert payload is None and error == "timed out after 1 s"


@pytest.mark.slow  # a second of a child process: kept out of the quick loop
def test_real_jpeg_decode_child():
    payload, error = run_bench("jpeg_decode", 60, "--seconds", "0.5")
    assert error is None
    assert payload["value"] > 0 and payload["details"]["images"] >= 20


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_plain_lines_when_not_a_terminal():
    stream = io.StringIO()
    p = Progress(stream=stream)
    p.start("JPEG decode")
    p.done()
    p.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "trainprobe check: measuring JPEG decode..."
    assert lines[1].startswith("trainprobe check: JPEG decode done in")
    quiet = io.StringIO()
    Progress(stream=quiet, plain_lines=False).start("x")
    assert quiet.getvalue() == ""


def test_progress_rewrites_one_line_on_a_terminal():
    stream = _Tty()
    p = Progress(stream=stream)
    p.start("RAM")
    p.start("Swap")
    p.finish()
    text = stream.getvalue()
    assert "\n" not in text and text.count("\r\033[K") == 3 and "measuring Swap" in text


def test_colour_only_on_a_terminal_without_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert use_color(_Tty()) is True
    assert use_color(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(_Tty()) is False
