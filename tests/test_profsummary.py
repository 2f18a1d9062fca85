"""The profiler summary from a real torch.profiler window over a small loop."""

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from trainprobe.probe.profsummary import summarize_profile
from trainprobe.probe.windows import ProfilerWindow


class ItemInTransform(Dataset):
    """A dataset whose __getitem__ calls .item(): data loading, not the loop's sync."""

    def __len__(self):
        return 64

    def __getitem__(self, i):
        x = torch.randn(4)
        x = x * float(x.abs().max().item() > 0)
        return x


@pytest.mark.slow
def test_syncs_are_split_between_loop_optimizer_and_loader():
    loader = DataLoader(ItemInTransform(), batch_size=8)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.AdamW(model.parameters())
    batches = iter(loader)  # iterator set-up (a seed tensor) stays outside the window, as mid-epoch
    window = ProfilerWindow(with_cuda=False)
    window.start(0)
    steps = 0
    for x in batches:
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()
        loss.item()  # the loop's own sync: one per step
        torch.tensor([1.0, 2.0])  # a tensor built from Python data: one per step
        steps += 1
    window.stop(steps)
    summary = summarize_profile(window, with_cuda=False)
    assert summary.availability.available
    assert summary.steps == steps == 8
    assert summary.sync_calls["item/tolist"] == 1.0  # the dataset's .item() calls are left out
    assert summary.sync_calls["item/tolist (optimizer)"] >= 1.0  # AdamW's step counter
    assert summary.syncs_per_step == 1.0
    assert summary.tensor_creations_per_step == 1.0
    assert summary.ops_per_step > 0 and summary.loop_op_time_per_step > 0
    assert any(op.name == "aten::addmm" for op in summary.top_cpu_ops)


def test_a_window_that_never_closed_is_unavailable_with_a_reason():
    window = ProfilerWindow(with_cuda=False)
    window.start(0)
    window.stop(0)
    summary = summarize_profile(window, with_cuda=False)
    assert not summary.availability.available
    assert "ended before" in summary.availability.reason
