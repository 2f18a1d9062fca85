"""The profiler summary from a real torch.profiler window over a small loop."""

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from trainprobe.probe.clock import PhaseRanges
from trainprobe.probe.profsummary import LIVE_TRACE_NAME, summarize_profile
from trainprobe.probe.windows import ProfilerWindow


def _each_step(batches, ranges, steps=8):
    """The batches, each fetched inside its step's range (a step runs from one fetch to the next)."""
    for step in range(steps):
        ranges.begin_step(step)
        yield next(batches)


class ItemInTransform(Dataset):
    """A dataset whose __getitem__ calls .item(): data loading, not the loop's sync."""

    def __len__(self):
        return 64

    def __getitem__(self, i):
        x = torch.randn(4)
        x = x * float(x.abs().max().item() > 0)
        return x


@pytest.mark.slow
def test_syncs_are_split_between_loop_optimizer_and_loader(tmp_path):
    loader = DataLoader(ItemInTransform(), batch_size=8)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.AdamW(model.parameters())
    batches = iter(loader)  # iterator set-up (a seed tensor) stays outside the window, as mid-epoch
    window = ProfilerWindow(with_cuda=False)
    window.start(0)
    ranges = PhaseRanges()  # the clock marks each step as a ProfilerStep#N range in the window
    steps = 0
    for x in _each_step(batches, ranges):
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()
        loss.item()  # the loop's own sync: one per step
        torch.tensor([1.0, 2.0])  # a tensor built from Python data: one per step
        steps += 1
    ranges.close()
    window.stop(steps)
    summary = summarize_profile(window, with_cuda=False, out_dir=str(tmp_path))
    assert summary.availability.available and summary.source == "live"
    assert (tmp_path / LIVE_TRACE_NAME).exists()  # the window as a standard trace, beside the record
    assert summary.steps == steps == 8
    assert summary.sync_calls["item/tolist"] == 1.0  # the dataset's .item() calls are left out
    assert summary.sync_calls["item/tolist (optimizer)"] >= 1.0  # AdamW's step counter
    assert summary.syncs_per_step == 1.0
    assert summary.tensor_creations_per_step == 1.0
    assert summary.ops_per_step > 0 and summary.loop_op_time_per_step > 0
    assert any(op.name == "aten::addmm" for op in summary.top_cpu_ops)


@pytest.mark.slow  # starts torch.profiler (over a second here)
def test_a_window_that_never_closed_is_unavailable_with_a_reason():
    window = ProfilerWindow(with_cuda=False)
    window.start(0)
    window.stop(0)
    summary = summarize_profile(window, with_cuda=False)
    assert not summary.availability.available
    assert "ended before" in summary.availability.reason
