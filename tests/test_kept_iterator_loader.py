"""A DataLoader whose iterator is made with ``_get_iterator()`` and kept, never through ``DataLoader.__iter__``.

ultralytics' InfiniteDataLoader (test set 19) does so to reuse its workers: trainprobe saw no DataLoader, no
batch was timed, and its steps were cut at optimizer steps, with the loop's waits for data counted as its own
code. The probe now times the iterators a DataLoader makes outside ``__iter__`` too."""

from __future__ import annotations

import pytest

from probe_helpers import SCRIPTS, diagnose
from trainprobe.engine import apply_rules


@pytest.mark.slow
def test_batches_from_a_kept_iterator_are_timed_and_delimit_the_steps(tmp_path):
    proc, record = diagnose(tmp_path / "out", str(SCRIPTS / "kept_iterator_loader.py"))
    assert proc.returncode == 0, proc.stderr
    (loader,) = record.settings.dataloaders
    assert loader.batches >= 90 and loader.created_at.endswith("kept_iterator_loader.py:34")
    assert record.settings.step_boundary == "fetch"
    steady = [s for s in record.steps if s.phase == "steady"]
    # Eight samples of 2 ms each per batch, made in the main process, against a tiny model's step.
    assert steady and all(s.batches == 1 and s.data_wait > 0.012 for s in steady)
    diagnosis = apply_rules(record)
    assert diagnosis.verdict.category == "input", diagnosis.verdict.headline
