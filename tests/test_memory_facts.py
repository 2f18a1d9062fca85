"""The memory facts: the room a step's tensors have under each kind of limit, the need at the largest input,
and what each fix for a run out of memory would save (facts/memory.py, facts/memory_fixes.py).

Records are the rule cases' counted CPU step (tests/rule_cases/cases.py) with one thing changed; every expected
figure is worked out here from the record's own numbers.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

import pytest

from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.facts.memory_fixes import accumulation_plan
from trainprobe.probe.memory import ADDRESS_SPACE_LIMIT, DATA_LIMIT
from trainprobe.record import Memory, ModelInfo

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.cases import counted_cpu_step  # noqa: E402
from rule_cases.records import GIB, MIB, gpu_record, with_memory, with_settings  # noqa: E402


def _facts(record):
    return facts_by_name(compute_facts(record))


def _limited(source: str, limit: int = 2 * GIB, **census):
    rec = counted_cpu_step(**census)
    return replace(rec, memory=replace(rec.memory, limit=limit, limit_source=source, free_at_start=limit))


@pytest.mark.parametrize("source, figure", [("RAM", "resident_at_start"), (DATA_LIMIT, "data_at_start"),
                                            (ADDRESS_SPACE_LIMIT, "address_space_at_start")])
def test_the_room_is_the_free_memory_less_what_the_process_takes_as_the_limit_counts_it(source, figure):
    rec = _limited(source, limit=4 * GIB)
    values = _facts(rec)
    overhead = getattr(rec.memory.census, figure) - rec.memory.census.at_step_start
    assert values["memory_overhead"] == overhead
    assert values["memory_room"] == int((4 * GIB - overhead) * 0.9)


def test_on_a_gpu_the_room_is_the_free_memory_less_a_tenth():
    rec = with_memory(gpu_record(), dict(samples=256, at_step_start=2 * GIB, step_peak=20 * GIB,
                                         activation_peak=20 * GIB, parameters=GIB // 2),
                      limit=80 * GIB, limit_source="GPU memory", free_at_start=79 * GIB)
    values = _facts(rec)
    assert values["memory_overhead"] is None and values["memory_room"] == int(79 * GIB * 0.9)
    per_sample = 18 * GIB / 256
    assert values["memory_largest_batch"] == int((79 * GIB * 0.9 - 2 * GIB) // per_sample)


def test_the_need_at_the_largest_input_scales_the_counted_activations_by_its_elements():
    rec = counted_cpu_step()
    counted = rec.memory.census.input_elements
    rec = replace(rec, memory=replace(rec.memory, largest_input_shape="64x3x64x64",
                                      largest_input_elements=counted * 4, largest_input_step=31))
    values = _facts(rec)
    activations = 100 * MIB - 6 * MIB  # the peak outside the optimizer less what persists
    assert values["memory_input_scale"] == 4.0
    assert values["memory_activations_at_largest_input"] == 4 * activations
    assert values["memory_peak_at_largest_input"] == 6 * MIB + 4 * activations
    assert (values["memory_counted_input"], values["memory_largest_input"], values["memory_largest_input_step"]) == \
        ("64x3x32x32", "64x3x64x64", 31)


def test_without_a_larger_input_the_need_is_the_counted_peak():
    values = _facts(counted_cpu_step())
    assert values["memory_input_scale"] is None  # no larger input was seen (an old record streams none)
    assert values["memory_peak_at_largest_input"] == 100 * MIB


@pytest.mark.parametrize("batch, persistent, activations, room, expected", [
    (8, 30, 1390, 886, (2, 4)),      # 695 + 30 fits
    (8, 30, 1390, 500, (4, 2)),      # 347 + 30 fits, 695 + 30 does not
    (12, 0, 1200, 260, (6, 2)),      # 5 micro-batches would do, but 12 splits evenly in 6
    (7, 0, 700, 390, (7, 1)),        # a prime batch: one sample at a time
    (8, 900, 1390, 886, None),       # what persists alone does not fit
    (8, 30, 1390, 100, None),        # one sample (174) does not fit in the 70 left
    (1, 0, 100, 50, None),           # a batch of one cannot be split
])
def test_accumulation_takes_the_fewest_even_micro_batches_that_fit(batch, persistent, activations, room, expected):
    assert accumulation_plan(batch, persistent, activations, room) == expected


def test_each_fix_saves_what_it_removes():
    rec = _limited(DATA_LIMIT, limit=GIB)  # room (1024 - 794) * 0.9 = 207 MiB; the step needs 100 MiB
    values = _facts(rec)
    activations = 94 * MIB
    # 100 MiB fits: accumulation still offers half the batch, the least it can do.
    assert (values["memory_accumulation_steps"], values["memory_accumulation_micro_batch"]) == (2, 32)
    assert values["memory_saving_accumulation"] == activations // 2
    assert values["memory_saving_amp"] == activations // 2  # fp32 parameters, no autocast: up to half
    assert values["memory_saving_optimizer_state"] == int(2 * MIB * 0.75)
    assert values["memory_optimizer_state_fix"] == "8-bit optimizer state"
    assert values["memory_saving_set_to_none"] is None and values["memory_saving_inference_mode"] is None


def test_fixes_that_do_not_apply_save_nothing_and_those_the_script_asks_for_do():
    rec = with_settings(counted_cpu_step(), autocast_forwards=23, zero_grad_set_to_none_false=23)
    model = replace(rec.settings.models[0], eval_calls=5, eval_calls_with_grad=5)
    loaders = rec.settings.dataloaders + (replace(rec.settings.dataloaders[0], loader_id=1, batch_size=512,
                                                  used_in_training=False),)
    rec = with_settings(rec, models=(model,), dataloaders=loaders)
    values = _facts(rec)
    assert values["memory_saving_amp"] is None  # the forwards already ran under autocast
    assert values["memory_saving_set_to_none"] == 2 * MIB
    assert values["memory_eval_batch"] == 512
    assert values["memory_saving_inference_mode"] == int(80 * MIB / 64 * 512)  # kept for backward, per sample


def test_several_gpus_shard_the_optimizer_state_instead():
    rec = with_memory(gpu_record(), dict(samples=256, at_step_start=3 * GIB, step_peak=20 * GIB,
                                         activation_peak=20 * GIB, optimizer_state=2 * GIB),
                      limit=80 * GIB, limit_source="GPU memory", free_at_start=79 * GIB)
    rec = replace(rec, environment=replace(rec.environment, gpu_count=4))
    values = _facts(rec)
    assert values["memory_optimizer_state_fix"] == "sharding over 4 GPUs"
    assert values["memory_saving_optimizer_state"] == int(2 * GIB * 3 / 4)


def test_a_run_that_died_before_its_first_step_gets_the_parameters_and_the_optimizers_state_by_its_kind():
    rec = with_settings(gpu_record(), models=(ModelInfo(type="GPT", params=124_000_000,
                                                        param_bytes=496_000_000, dtypes=("float32",)),))
    rec = replace(rec, steps=(), memory=Memory(limit=16 * GIB, limit_source="GPU memory", free_at_start=15 * GIB))
    values = _facts(rec)
    assert values["memory_parameters"] == 496_000_000
    assert values["memory_optimizer_state"] == 2 * 496_000_000 and values["memory_optimizer_state_estimated"]
    assert values["memory_saving_optimizer_state"] == int(2 * 496_000_000 * 0.75)
    assert values["memory_limit"] == 16 * GIB and values["memory_room"] == int(15 * GIB * 0.9)


def test_growth_is_told_with_its_share_lines_phase_and_the_steps_left():
    rec = counted_cpu_step(retained_per_step=8 * MIB, retained_storages=1, retained_sites={"model.py:31": 8 * MIB},
                           retained_callers={"train.py:88": 8 * MIB}, retained_phases={"forward": 8 * MIB})
    values = _facts(rec)
    assert values["memory_growth_per_step"] == 8 * MIB and values["memory_growth_share"] == pytest.approx(0.08)
    assert (values["memory_growth_site"], values["memory_growth_call_site"]) == ("model.py:31", "train.py:88")
    assert (values["memory_growth_phase"], values["memory_growth_storages"]) == ("forward", 1)
    room = int((20 * GIB - 500 * MIB) * 0.9)
    assert values["memory_steps_to_fill"] == (room - 100 * MIB) // (8 * MIB)


def test_a_gpu_run_without_a_counted_step_still_tells_growth_from_the_allocator():
    from trainprobe.record import DeviceMemorySteps
    steps = tuple(range(10))
    rec = replace(gpu_record(), memory=Memory(device_steps=DeviceMemorySteps(
        step=steps, allocated_peak=tuple(10 * GIB + s * 64 * MIB for s in steps),
        reserved_peak=tuple(12 * GIB for _ in steps), allocated_end=tuple(2 * GIB + s * 64 * MIB for s in steps))))
    values = _facts(rec)
    assert values["memory_unknown_reason"] and values["memory_growth_steps"] == 9
    assert values["memory_growth_per_step"] == 64 * MIB
    assert values["memory_growth_share"] == pytest.approx(64 * MIB / (10 * GIB + 9 * 64 * MIB))


def test_a_script_that_already_accumulates_is_judged_by_its_micro_batch():
    """4 DataLoader batches of 16 per counted step (64 samples per update): the activations are one micro-batch's."""
    rec = counted_cpu_step()
    steps = tuple(replace(s, phase="census", batches=4) if s.index in (3, 4) else s for s in rec.steps)
    values = _facts(replace(rec, steps=steps))
    assert (values["memory_batch_samples"], values["memory_effective_batch"], values["memory_micro_batches"]) == \
        (16, 64, 4)
    assert values["memory_activations_per_sample"] == 94 * MIB / 16
    # Half the micro-batch is the least accumulation can offer: 8 micro-batches of 8 per update.
    assert (values["memory_accumulation_steps"], values["memory_accumulation_micro_batch"]) == (8, 8)
