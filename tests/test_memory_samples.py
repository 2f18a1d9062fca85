"""The memory samples' recorded runs against what their tensors hold, and what trainprobe makes of them.

Each sample's model is built here from its own code (sample_scripts/); the recorded counting step's parameter
bytes must match the model's tensors (elements x 4 bytes) within 1%, the gradients the same, and AdamW's
state two tensors per parameter. Then the findings: the out-of-memory run names the fix that fits with its
numbers, the leak is caught with its size and lines, the small batch (big_model_small_batch.py, 16 samples on a
9.5 M-parameter MLP) is told which batch fits.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import torch

from trainprobe.facts import compute_facts, facts_by_name

sys.path.insert(0, str(Path(__file__).resolve().parent))
import recorded  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "tests" / "data" / "runs"


def _sample(name: str):
    spec = importlib.util.spec_from_file_location(f"sample_{name}", ROOT / "sample_scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _model_bytes(name: str) -> int:
    module = _sample(name)
    if name == "transformer_out_of_memory":
        model = module.GPT(module.GPTConfig())
    elif name == "leaking_metrics":
        model = module.WordLM(4000)
    else:  # big_model_small_batch builds its MLP inside main(): the same layers, from its code
        h = 2048
        model = torch.nn.Sequential(torch.nn.Linear(512, h), torch.nn.Linear(h, h), torch.nn.Linear(h, h),
                                    torch.nn.Linear(h, 10))
    return sum(p.numel() * p.element_size() for p in model.parameters())  # tied weights counted once


def _path(name: str) -> Path:
    """The gallery's record of the sample, else the one made under load (tests/data/runs/README.md)."""
    gallery = RUNS / f"{name}.cpu.run.json"
    return gallery if gallery.exists() else RUNS / "memory" / f"{name}.cpu.run.json"


def _record(name: str):
    return recorded.load(_path(name))


def _close(value: float, expected: float, tolerance: float = 0.01) -> bool:
    return abs(value - expected) <= tolerance * expected


@pytest.mark.parametrize("name", ["transformer_out_of_memory", "leaking_metrics", "big_model_small_batch"])
def test_the_counted_weights_gradients_and_adam_state_match_the_tensors(name):
    census = _record(name).memory.census
    params = _model_bytes(name)
    assert census.availability.available, census.availability.reason
    assert _close(census.parameters, params)
    assert _close(census.gradients, params)
    assert _close(census.optimizer_state, 2 * params)  # AdamW: exp_avg and exp_avg_sq per parameter


def _finding(name: str, rule_id: str):
    diagnosis = recorded.diagnosed(_path(name))[1]
    found = {f.id: f for f in diagnosis.findings}
    assert rule_id in found, sorted(found)
    return diagnosis, found[rule_id]


def test_the_out_of_memory_run_names_the_fix_that_fits_with_numbers():
    record = _record("transformer_out_of_memory")
    assert record.outcome.oom and "can't allocate memory" in record.outcome.exception_message
    memory = record.memory
    assert memory.limit_source == "data-segment limit (ulimit -d)" and memory.limit == 2 * 2 ** 30
    assert memory.failed_request and memory.failed_request > 0
    counted = [int(d) for d in memory.census.input_shape.split("x")]
    largest = [int(d) for d in memory.largest_input_shape.split("x")]
    assert largest[1] > 1000 > counted[1]  # the long article's batch, after a counted step of short posts
    diagnosis, f = _finding("transformer_out_of_memory", "memory-near-limit")
    assert diagnosis.verdict.category == "memory" and f.severity == "critical"
    values = facts_by_name(compute_facts(record))
    assert values["memory_input_scale"] == pytest.approx(largest[0] * largest[1] / (counted[0] * counted[1]))
    assert values["memory_peak_at_largest_input"] > values["memory_room"]  # it did not fit, as it did not
    match = re.search(r"\(1\) gradient accumulation: batches of (\d+) with (\d+) accumulation steps keep the "
                      r"effective batch of 8 .*?\(fits: estimated peak", f.advice)
    assert match and int(match.group(1)) * int(match.group(2)) == 8
    assert "On its own, gradient accumulation" in f.advice
    assert "the allocation that failed asked for" in f.message and "The largest input the run saw was" in f.message


def test_the_leak_is_caught_with_its_size_and_lines():
    record = _record("leaking_metrics")
    _diagnosis, f = _finding("leaking_metrics", "memory-grows-each-step")
    values = facts_by_name(compute_facts(record))
    assert values["memory_growth_per_step"] == 16 * 32 * 4000 * 4  # one step's logits: batch x tokens x vocabulary
    source = (ROOT / "sample_scripts" / "leaking_metrics.py").read_text().splitlines()
    made = int(values["memory_growth_site"].rsplit(":", 1)[1])
    called = int(values["memory_growth_call_site"].rsplit(":", 1)[1])
    assert "self.decoder(out)" in source[made - 1] and "model(inputs, state)" in source[called - 1]
    assert "A forward's output is kept" in f.message


def test_a_loader_that_holds_the_next_batch_is_not_a_leak():
    """sample_scripts/loader_one_batch_ahead.py iterates its DataLoader one batch ahead, as accelerate's
    and Lightning's loaders do: the batch made in one counted step is alive a whole step later (it is
    the next step's batch), and gone one step after that. Recorded: held for one step, not growth."""
    record, diagnosis = recorded.diagnosed(recorded.RUNS_DIR / "loader_one_batch_ahead.cpu.run.json")
    census = record.memory.census
    one_batch = 128 * 3 * 32 * 32 * 4 + 128 * 8  # the images and the int64 labels of one batch of 128
    assert census.held_one_step == one_batch and census.retained_per_step == 0
    assert "memory-grows-each-step" not in {f.id for f in diagnosis.findings}


def test_the_small_batch_is_told_which_batch_fits():
    record = _record("big_model_small_batch")
    _diagnosis, f = _finding("big_model_small_batch", "low-mfu-small-batch")
    values = facts_by_name(compute_facts(record))
    assert values["memory_largest_batch"] >= 4 * 16
    assert "memory has room for more: batch 64 fits at an estimated peak of" in f.message


@pytest.mark.slow  # every recorded run, the real scripts' too: 7 s
def test_no_other_recorded_run_is_called_a_leak():
    for path in recorded.ALL_RUNS:
        script = recorded.load(path).invocation.script or ""
        if path.name.startswith("leaking_metrics") or Path(script).name == "leaking_metrics.py":
            continue  # the leaking sample itself (on the GPU its record is memory_leak.h200)
        assert "memory-grows-each-step" not in {f.id for f in recorded.diagnosed(path)[1].findings}, path.name


def test_a_run_the_kernels_oom_killer_ended_keeps_its_limit_its_largest_input_and_the_fix():
    """The same sample without its own limit, in a cgroup v1 memory group of 1900 MiB: SIGKILL at step 17, with no
    end of the script to write the limit (it was streamed when the count began)."""
    record = recorded.load(RUNS / "memory" / "transformer_out_of_memory_killed.cpu.run.json")
    assert record.outcome.status == "killed" and record.outcome.oom and record.outcome.signal == "SIGKILL"
    assert record.memory.limit_source == "cgroup memory limit" and record.memory.limit == 1900 * 2 ** 20
    assert record.memory.largest_input_step == 17 and record.memory.failed_request is None
    diagnosis = recorded.diagnosed(RUNS / "memory" / "transformer_out_of_memory_killed.cpu.run.json")[1]
    f = next(f for f in diagnosis.findings if f.id == "memory-near-limit")
    assert "(killed by the operating system's OOM killer)" in f.message
    assert "(1) gradient accumulation: batches of 4 with 2 accumulation steps" in f.advice
