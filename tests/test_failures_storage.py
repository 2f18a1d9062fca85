"""Storage is blamed only when reads were measured: a dataset held in memory whose __getitem__
sleeps makes the loop wait for data, but reads no file."""

from __future__ import annotations

from pathlib import Path

from trainprobe.api import analyze, load_record
from trainprobe.probe.hotspots import categorize

RUNS = Path(__file__).parent / "data" / "runs"


def test_sleeping_is_its_own_category_not_a_file_read():
    assert categorize("~", "<built-in method time.sleep>") == "sleep"
    assert categorize("~", "<built-in method io.open>") == "io"
    assert categorize("~", "<built-in method posix.stat>") == "metadata"  # a lookup (imports make many), not a read


def test_a_sleeping_in_memory_dataset_is_input_bound_but_not_storage_bound():
    """A real run of tests/scripts/sleeping_dataset.py (2 workers, 2 ms of sleep per sample)."""
    record = load_record(RUNS / "failures" / "sleeping_dataset.json")
    assert record.hotspots.worker_categories["sleep"] > 0.9
    assert record.hotspots.worker_categories.get("io", 0) < 0.002  # stat calls of imports, no reads
    diagnosis = analyze(record)
    assert diagnosis.verdict.category == "input"
    assert "storage-bound-input" not in {f.id for f in diagnosis.findings}
    # ...and it is named for what it is: workers waiting on something that is not the CPU or storage.
    assert diagnosis.verdict.primary_finding == "dataloader-workers-waiting"


def test_a_dataset_that_reads_files_is_still_storage_bound():
    from recorded import diagnosed

    _, diagnosis = diagnosed(RUNS / "slow_storage.cpu.run.json")
    assert diagnosis.verdict.primary_finding == "storage-bound-input"
