"""A step is one iteration of the training loop, whatever its shape: run real loops under the probe
(the --full run lets each finish its iterations) and count."""

from __future__ import annotations

import pytest

from probe_helpers import SCRIPTS, diagnose
from trainprobe.facts import compute_facts, facts_by_name

pytestmark = pytest.mark.slow

ITERATIONS = 60


def _run(tmp_path, shape):
    # --steps 10: the windows fit in the 60 iterations, so there is no second run fitted to them.
    proc, record = diagnose(tmp_path / shape, "--full", "--warmup-steps", "2", "--steps", "10",
                            str(SCRIPTS / "shapes.py"), "--shape", shape, "--iterations", str(ITERATIONS))
    assert proc.returncode == 0, proc.stderr
    return record, facts_by_name(compute_facts(record))


# Samples per step: the training batches' samples, however they are collated (probe/samples.py).
@pytest.mark.parametrize("shape, unit, updates, batches, samples", [
    ("gan", "fetch", 2, 1, 16),
    ("accumulate", "fetch", 1, 4, 64),
    ("lbfgs", "fetch", 1, 1, 16),
    ("closure", "fetch", 1, 1, 16),
    ("nooptim", "fetch", 0, 1, 16),
    ("handmade", "optimizer", 1, 0, 16),
    ("noise", "fetch", 1, 1, 16),
    # detectron2's one sample dict a fetch, two a step: its image's channels were counted (3 a fetch).
    ("grouped", "fetch", 1, 2, 2),
    # torchvision's detection collate: a tuple of images and a tuple of target dicts, 4 of each.
    ("detection", "fetch", 1, 1, 4),
])
def test_each_loop_shape_gives_one_step_per_iteration(tmp_path, shape, unit, updates, batches, samples):
    record, values = _run(tmp_path, shape)
    training = [s for s in record.steps if not s.validation]
    # The last iteration ends with the script; gradient accumulation's first micro-batches come before
    # the first optimizer step tells the clock they belong together.
    assert ITERATIONS - 1 <= len(training) <= ITERATIONS + (3 if shape == "accumulate" else 0), len(training)
    assert values["step_unit"] == unit
    assert values["updates_per_step"] == updates and values["batches_per_step"] == batches
    assert values["samples_per_step"] == samples


def test_a_closures_own_code_is_not_optimizer_time(tmp_path):
    record, values = _run(tmp_path, "closure")
    # SGD's own update is small; the closure's zero_grad and loss glue are the loop's code.
    assert values["optimizer_per_step"] < values["forward_per_step"] + values["backward_per_step"]
    assert values["forward_per_step"] > 0 and values["backward_per_step"] > 0


def test_a_loader_read_inside_the_forward_is_not_the_training_loader(tmp_path):
    """SpeechBrain's speaker-id template (test set 11): AddNoise draws its noise from a DataLoader of its
    own inside the step. Each of its batches ended a step, every step was cut in two, and the noise
    loader was taken for the training one."""
    record, _ = _run(tmp_path, "noise")
    used = [d.dataset_len for d in record.settings.dataloaders if d.used_in_training]
    assert used == [4096]
