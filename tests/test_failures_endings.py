"""How a run's end is named: out of memory only on evidence, a second Ctrl-C is an interruption."""

from __future__ import annotations

import signal

from trainprobe.probe.outcome import build_outcome as _outcome, oom_kill_count


def _end(returncode, child=None, interrupted=False, oom_killed=None):
    return _outcome(returncode, child, timed_out=False, interrupted=interrupted, duration=10.0, startup=1.0,
                    stop_requested=None, oom_killed=oom_killed)


def test_a_sigkill_is_out_of_memory_only_when_the_kernel_says_so():
    killed = -signal.SIGKILL
    assert _end(killed, oom_killed=True).oom
    assert "out-of-memory killer" in _end(killed, oom_killed=True).reason
    plain = _end(killed, oom_killed=False)
    assert plain.status == "killed" and not plain.oom
    assert "sender unknown" in plain.reason
    assert not _end(killed, oom_killed=None).oom  # no counter to read: no claim either way


def test_a_second_ctrl_c_is_an_interruption_not_a_kill():
    outcome = _end(-signal.SIGKILL, interrupted=True)
    assert outcome.status == "interrupted" and not outcome.oom


def test_the_cpu_running_out_of_memory_is_out_of_memory():
    for exc_type, message in (("MemoryError", ""),
                              ("RuntimeError", "DefaultCPUAllocator: can't allocate memory: you tried to allocate")):
        outcome = _end(1, child={"status": "failed", "exception_type": exc_type, "exception_message": message})
        assert outcome.status == "failed" and outcome.oom, exc_type


def test_the_kernels_oom_counter_is_read_where_linux_has_one():
    count = oom_kill_count()
    assert count is None or count >= 0


def test_the_terminal_says_the_run_was_killed():
    from dataclasses import replace
    from pathlib import Path

    from trainprobe.api import analyze
    from trainprobe.record import RunRecord
    from trainprobe.report import terminal_summary

    record = RunRecord.load(Path(__file__).parent / "data" / "runs" / "crash_loop.cpu.run.json")
    killed = replace(record, outcome=replace(record.outcome, status="killed", signal="SIGKILL", exit_code=-9,
                                             exception_type=None, reason="the script was killed by SIGKILL"))
    text = terminal_summary(killed, analyze(killed), None, color=False)
    assert "The run was killed by a signal (exit code -9)." in text


def test_a_cpu_memory_blow_up_keeps_the_scripts_error_and_is_named_out_of_memory():
    """A real run of tests/scripts/allocate_too_much.py under `ulimit -v 8000000` (8 GB of address
    space): plain python exits 1 with the allocator's RuntimeError, and so did the probed script."""
    from pathlib import Path

    from trainprobe.api import analyze, load_record

    record = load_record(Path(__file__).parent / "data" / "runs" / "failures" / "cpu_out_of_memory.json")
    assert record.outcome.status == "failed" and record.outcome.exit_code == 1
    assert record.outcome.exception_type == "RuntimeError"
    assert "can't allocate memory" in record.outcome.exception_message
    assert record.outcome.oom
    diagnosis = analyze(record)
    assert diagnosis.verdict.category == "memory" and diagnosis.verdict.primary_finding == "memory-near-limit"
