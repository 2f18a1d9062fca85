"""The what-if's fixes, one module each: every registered fix is complete, and the plug-in that applies
them undoes every patch and flag when the run ends (in this process, on real torch objects)."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from trainprobe.findings import Finding
from trainprobe.probe.plugins import PluginContext, load_plugins
from trainprobe.probe.settings import Registry
from trainprobe.whatif.fixes import GENERIC_BY_HAND, REGISTRY, PlanContext
from trainprobe.whatif.inject import FixApplier, plugin_spec
from trainprobe.whatif.plan import hand_instructions

INJECTABLE = sorted(k for k, f in REGISTRY.items() if f.injectable)
ADVICE_ONLY = sorted(k for k, f in REGISTRY.items() if not f.injectable)


@pytest.mark.parametrize("fix_id", sorted(REGISTRY))
def test_each_fix_module_is_complete(fix_id):
    fix = REGISTRY[fix_id]
    assert fix.id == fix_id and fix.what
    if fix.injectable:
        assert fix.injector.fix_id == fix_id
        candidates = fix.candidates(PlanContext(num_workers=0, usable_cores=4, facts={
            "suggested_num_workers": 2, "torch_threads": 4, "suggested_torch_threads": 2,
            "batch_size": 4, "suggested_batch_size": 64, "glibc_malloc": True,
            "suggested_malloc_trim_bytes": 1 << 30}))
        assert candidates and all(c.fix_id == fix_id and fix_id in c.fixes for c in candidates)
    else:
        assert fix.not_injected_because and fix.by_hand != GENERIC_BY_HAND
        text = hand_instructions(Finding(id="r", name="r", category="input", severity="warning", title="t",
                                         message="m", advice="a", fix_id=fix_id))
        assert fix.by_hand in text and fix.not_injected_because in text


def test_num_workers_comes_first_because_other_loader_fixes_read_it():
    assert list(REGISTRY)[0] == "num_workers"


def _context(events: list) -> PluginContext:
    return PluginContext(emit=lambda kind, **fields: events.append((kind, fields)), registry=Registry(),
                         position=lambda: (0, "warmup"))


def test_the_probe_loads_the_what_if_by_name_only():
    plugin = load_plugins((plugin_spec({"set_to_none": True}),))
    assert isinstance(plugin, FixApplier) and plugin.asked == {"set_to_none": True}
    assert load_plugins(()) is None


def test_every_patch_and_flag_is_undone_when_the_run_ends():
    originals = (DataLoader.__init__, torch.set_anomaly_enabled)
    flags = (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten())
    # Every injectable fix but compile: torch.compile costs seconds to import; tests/test_whatif_inject.py
    # runs it in a real child.
    threads = torch.get_num_threads()
    values = {"num_workers": 2, "prefetch_factor": 2, "torch_threads": 1, "larger_batch": [2, 4]}
    applier = FixApplier({"fixes": {k: values.get(k, True) for k in INJECTABLE if k != "compile"},
                          "record_loss": True})
    events: list = []
    applier.install(_context(events))
    try:
        assert DataLoader.__init__ is not originals[0] and torch.set_anomaly_enabled is not originals[1]
        loader = DataLoader(TensorDataset(torch.zeros(4, 3, 8, 8)), batch_size=2)
        assert (loader.num_workers, loader.persistent_workers, loader.prefetch_factor) == (2, True, 2)
        torch.autograd.set_detect_anomaly(True)
        assert not torch.is_anomaly_enabled()
        applier.before_forward(model, (torch.zeros(2, 3, 8, 8),))
        applier.after_forward()  # the model is not called: torch.compile compiles lazily, on a call
        assert model[0].weight.is_contiguous(memory_format=torch.channels_last)
        assert torch.get_float32_matmul_precision() == "high" and torch.backends.cudnn.benchmark
        assert torch.get_num_threads() == 1
        applier.before_backward(torch.ones(()) * 2.5)
    finally:
        applier.finish()
        applier.uninstall()
    assert (DataLoader.__init__, torch.set_anomaly_enabled) == originals
    assert (torch.get_float32_matmul_precision(), torch.backends.cudnn.benchmark,
            torch.backends.cudnn.allow_tf32) == flags
    assert torch.get_num_threads() == threads
    assert not model._forward_pre_hooks
    kinds = [kind for kind, _ in events]
    assert "loss" in kinds and "fixes_applied" in kinds
    applied = dict(events)["fixes_applied"]["fixes"]
    assert {"num_workers", "persistent_workers", "prefetch_factor", "anomaly_off", "channels_last",
            "tf32", "cudnn_benchmark", "torch_threads"} <= set(applied)


def test_unknown_and_advice_only_fixes_are_noted_not_applied():
    events: list = []
    applier = FixApplier({"fixes": {"no_such_fix": True, ADVICE_ONLY[0]: True}})
    applier.install(_context(events))
    applier.uninstall()
    notes = [fields["text"] for kind, fields in events if kind == "note"]
    assert any("no_such_fix" in n for n in notes) and any(ADVICE_ONLY[0] in n for n in notes)
    assert applier.injectors == []
