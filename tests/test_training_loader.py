"""Which DataLoader feeds training: the one whose batch preceded a backward, not merely the last one that
yielded. On an H200 a sample trained from batches indexed on the device, and its validation DataLoader
(batch 1024, under no_grad) was taken for the training loader: the findings said 'batch size 1024' and
pointed at the validation loader's line."""

from __future__ import annotations

import pytest

from probe_helpers import SCRIPTS, diagnose


@pytest.mark.slow
def test_a_validation_loader_under_no_grad_is_not_the_training_loader(tmp_path):
    proc, record = diagnose(tmp_path / "out", str(SCRIPTS / "batches_without_a_loader.py"))
    assert proc.returncode == 0, proc.stderr
    loaders = record.settings.dataloaders
    assert len(loaders) == 1 and loaders[0].batch_size == 256 and loaders[0].batches > 0
    assert not loaders[0].used_in_training
