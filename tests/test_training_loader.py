"""Which DataLoader feeds training: the one whose batch preceded a backward, not merely the last one that
yielded. On an H200 a sample trained from batches indexed on the device, and its validation DataLoader
(batch 1024, under no_grad) was taken for the training loader: the findings said 'batch size 1024' and
pointed at the validation loader's line."""

from __future__ import annotations

import pytest

from probe_helpers import SCRIPTS, diagnose
from trainprobe.engine import apply_rules


@pytest.mark.slow
def test_a_validation_loader_under_no_grad_is_not_the_training_loader(tmp_path):
    proc, record = diagnose(tmp_path / "out", str(SCRIPTS / "batches_without_a_loader.py"))
    assert proc.returncode == 0, proc.stderr
    loaders = record.settings.dataloaders
    assert len(loaders) == 1 and loaders[0].batch_size == 256 and loaders[0].batches > 0
    assert not loaders[0].used_in_training
    # Batches made by hand: the samples per step are the training forward's batch (its input's first
    # dimension), not the validation loader's 256 and not the 1-d forward on one sample (test sets 12 and 13:
    # d2l's iterator and three RL loops had no samples per step, so small-batch-overhead could not judge them).
    facts = {f.name: f.value for f in apply_rules(record).facts}
    assert facts["samples_per_step"] == 64
    assert any("the largest batch a training forward took" in n for n in record.notes), record.notes


@pytest.mark.slow
def test_an_odes_batch_is_the_state_after_the_solvers_scalar_time(tmp_path):
    """The model of an ODE fit is its right-hand side, func(t, y), called with the scalar time first: the batch
    is the state after it (torchdiffeq's demo, test set 16, had no samples per step, so small-batch-overhead
    could not judge its batch of 20)."""
    proc, record = diagnose(tmp_path / "out", "--warmup-steps", "3", "--steps", "20", str(SCRIPTS / "ode_batches.py"))
    assert proc.returncode == 0, proc.stderr
    facts = {f.name: f.value for f in apply_rules(record).facts}
    assert facts["samples_per_step"] == 16


@pytest.mark.slow
def test_a_librarys_own_loader_that_hands_torch_a_stand_in_is_timed(tmp_path):
    """fastai's DataLoader makes torch's loader iterators from a stand-in object, so DataLoader.__iter__
    never runs: its batches are still counted and the loop's waits for them are data waits, with the batch
    size read from the library's loader behind the stand-in."""
    # Windows counted in steps, which the 120 fast batches hold: one run, not a second one fitted to them.
    proc, record = diagnose(tmp_path / "out", "--warmup-steps", "3", "--steps", "20",
                            str(SCRIPTS / "library_loader.py"))
    assert proc.returncode == 0, proc.stderr
    loaders = record.settings.dataloaders
    assert len(loaders) == 1 and loaders[0].batches > 0 and loaders[0].used_in_training
    assert loaders[0].batch_size == 8 and loaders[0].num_workers == 0
    facts = {f.name: f.value for f in apply_rules(record).facts}
    assert facts["samples_per_step"] == 8
    assert facts["data_wait_share"] > 0.5  # a 4 ms sleep per batch against a tiny model
