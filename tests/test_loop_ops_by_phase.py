"""A batch made in the loop by thousands of tiny tensor writes (spro's char-rnn, test set 24: ~20,000 a step)
is the loop's work, not the model's cost of calling ops: the profile keeps the loop's ops by phase, and the
calling cost counts the model's phases' ops alone. A real loop run under the probe."""

from __future__ import annotations

import pytest

from probe_helpers import diagnose
from trainprobe.facts import compute_facts, facts_by_name

pytestmark = pytest.mark.slow

_SCRIPT = '''
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
text = [i % 64 for i in range(100000)]


def make_batch():
    batch = torch.zeros(32, 64)
    for row in range(32):  # one tensor write per character, as char-rnn's char_tensor does
        for col in range(64):
            batch[row, col] = text[(row * 64 + col) % len(text)] / 64.0
    return batch


for step in range(80):
    batch = make_batch()
    loss = torch.nn.functional.mse_loss(model(batch), batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
'''


def test_the_loops_own_tiny_ops_are_not_the_models_calling_cost(tmp_path):
    script = tmp_path / "make_in_loop.py"
    script.write_text(_SCRIPT)
    proc, record = diagnose(tmp_path / "out", "--full", "--warmup-steps", "2", "--steps", "10", str(script))
    assert proc.returncode == 0, proc.stderr
    prof = record.profiler
    model_ops = sum(prof.ops_by_phase.get(p, 0.0) for p in ("forward", "backward", "optimizer"))
    assert prof.ops_by_phase["other"] > 10 * model_ops  # 2,048 writes a step against a few dozen model ops
    assert prof.small_op_time_by_phase["other"] > sum(
        prof.small_op_time_by_phase.get(p, 0.0) for p in ("forward", "backward", "optimizer"))
    values = facts_by_name(compute_facts(record))
    assert values["model_ops_per_step"] == pytest.approx(model_ops)  # what the findings say "each step ran"
    # Counted over every op of the step, as before, the loop's writes made most of the step "calling ops".
    profiled = [s for s in record.steps if s.phase == "profiled"]
    duration = sum(s.duration for s in profiled) / len(profiled)
    every_op = prof.small_op_time_share * sum(prof.op_time_by_phase.values()) / duration
    assert values["dispatch_share"] < 0.5 * every_op
