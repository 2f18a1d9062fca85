"""What each memory fix would save: the numbers a run that ran out of memory (or nearly) is ranked by.

Part of the memory facts (``facts/memory.py`` merges ``FIX_FACTS`` into its catalog and calls
:func:`savings` last, with the facts it computed). Each saving is in bytes, at the largest input the
run saw (``memory_activations_at_largest_input``), and None where the fix does not apply or cannot be
sized. The rules rank them (rules/memory-near-limit.toml); the figures and their bases:

* gradient accumulation: the fewest micro-batches (dividing the counted batch evenly) whose
  activations fit in ``memory_room`` beside what persists; the activations shrink with the
  micro-batch (the per-sample figure's assumption);
* mixed precision (autocast to bf16/fp16) where the forwards ran in fp32: about half of the
  activations (the usual rule: activations kept in 16 bits, the weights and their state unchanged);
* activation checkpointing of the largest repeated blocks: ``checkpoint_saving`` (their kept
  activations less their inputs) scaled like the activations;
* a smaller optimizer state: sharded over the GPUs (ZeRO-1 / FSDP) where several are present, else
  8-bit states: three quarters of fp32 state;
* ``torch.inference_mode()`` for evaluation forwards that built a graph: what a training forward of
  the evaluation batch keeps for backward (the counted step's per sample, times that batch);
* ``zero_grad(set_to_none=True)`` where the script asked for False: up to the gradients, which then
  do not exist during the forward.
"""

from __future__ import annotations

from typing import Optional

from ..record import RunRecord
from .settings import eval_forwards_with_grad

__all__ = ["FIX_FACTS", "FIT_MARGIN", "savings", "accumulation_plan"]

FIT_MARGIN = 0.9  # leave a tenth of the free memory to the allocator's rounding and the framework
_AMP_SAVING = 0.5  # activations in 16 bits instead of 32
_EIGHT_BIT_SAVING = 0.75  # optimizer state in 8 bits instead of 32

FIX_FACTS = {
    "memory_accumulation_steps": ("count", "Gradient accumulation: micro-batches per update that make the step fit "
                                  "memory_room (dividing the counted batch evenly; at least 2)."),
    "memory_accumulation_micro_batch": ("count", "The micro-batch then: memory_effective_batch over "
                                        "memory_accumulation_steps (the effective batch stays the same)."),
    "memory_saving_accumulation": ("bytes", "What that accumulation saves at the largest input: the activations of "
                                   "the samples no longer in the micro-batch."),
    "memory_saving_amp": ("bytes", "What mixed precision (autocast to bf16/fp16) would save where the forwards ran "
                          "in fp32: about half the activations at the largest input."),
    "memory_saving_checkpointing": ("bytes", "What activation checkpointing of the largest repeated blocks would "
                                    "save at the largest input (checkpoint_saving, scaled like the activations)."),
    "memory_saving_optimizer_state": ("bytes", "What a smaller optimizer state would save: sharded over the GPUs "
                                      "(ZeRO/FSDP) where several are present, else 8-bit states (3/4 of fp32 "
                                      "state)."),
    "memory_optimizer_state_fix": ("text", "Which: 'sharding over N GPUs' or '8-bit optimizer state'."),
    "memory_eval_batch": ("count", "The evaluation loader's batch size (the training batch when it has none)."),
    "memory_saving_inference_mode": ("bytes", "Where evaluation forwards built a graph: what one keeps for "
                                     "backward, from the counted step's per sample times memory_eval_batch."),
    "memory_saving_set_to_none": ("bytes", "Where zero_grad(set_to_none=False) was called: up to the gradients, "
                                  "freed between steps with set_to_none=True."),
}


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def accumulation_plan(batch: int, persistent: float, activations: float, room: float) -> Optional[tuple[int, int]]:
    """(micro-batches, micro-batch size): the fewest micro-batches, at least 2, that divide ``batch`` evenly
    and whose activations (``activations`` for the whole batch, shrinking with it) fit ``room`` beside
    ``persistent``; None when even one sample does not fit or the batch cannot be split."""
    if batch < 2 or activations <= 0:
        return None
    left = room - persistent
    if left <= 0:
        return None
    per_sample = activations / batch
    for steps in range(2, batch + 1):
        if batch % steps == 0 and per_sample * (batch // steps) <= left:
            return steps, batch // steps
    return None


def _eval_batch(record: RunRecord) -> Optional[int]:
    sizes = [d.batch_size for d in record.settings.dataloaders if not d.used_in_training and d.batch_size]
    if sizes:
        return max(sizes)
    return record.memory.census.samples


def _optimizer_state(record: RunRecord, state: object) -> dict[str, object]:
    if not _number(state) or not state:
        return {}
    gpus = max(record.environment.gpu_count or 0, record.settings.world_size or 0)
    if record.settings.cuda_used and gpus >= 2:
        return {"memory_saving_optimizer_state": int(state * (1 - 1 / gpus)),  # type: ignore[operator]
                "memory_optimizer_state_fix": f"sharding over {gpus} GPUs"}
    return {"memory_saving_optimizer_state": int(state * _EIGHT_BIT_SAVING),  # type: ignore[operator]
            "memory_optimizer_state_fix": "8-bit optimizer state"}


def savings(record: RunRecord, facts: dict[str, object]) -> dict[str, object]:
    """Each fix's saving (see the module's docstring), from the memory facts computed so far."""
    settings = record.settings
    out: dict[str, object] = _optimizer_state(record, facts.get("memory_optimizer_state"))
    if settings.zero_grad_set_to_none_false and _number(facts.get("memory_gradients")):
        out["memory_saving_set_to_none"] = facts["memory_gradients"]
    activations = facts.get("memory_activations_at_largest_input")
    if not _number(activations):
        return out
    scale = facts.get("memory_input_scale") if _number(facts.get("memory_input_scale")) else 1.0
    batch = facts.get("memory_batch_samples")
    room, persistent = facts.get("memory_room"), facts.get("memory_persistent")
    already = facts.get("memory_micro_batches") if _number(facts.get("memory_micro_batches")) else 1
    if _number(batch) and _number(room) and _number(persistent):
        plan = accumulation_plan(int(batch), persistent, activations, room)  # type: ignore[arg-type]
        if plan is None and int(batch) >= 2 and room > persistent:  # type: ignore[operator]
            plan = (int(batch), 1)  # one sample at a time: the most accumulation can do (it does not fit)
        if plan is not None:
            steps, micro = plan
            # Steps per update, counting the micro-batches the script already accumulates over.
            out.update({"memory_accumulation_steps": steps * int(already), "memory_accumulation_micro_batch": micro,  # type: ignore[arg-type]
                        "memory_saving_accumulation": int(activations * (1 - micro / int(batch)))})  # type: ignore[operator]
    if settings.autocast_forwards == 0 and _fp32(record):
        out["memory_saving_amp"] = int(activations * _AMP_SAVING)  # type: ignore[operator]
    if _number(facts.get("checkpoint_saving")) and facts["checkpoint_saving"]:
        out["memory_saving_checkpointing"] = int(facts["checkpoint_saving"] * scale)  # type: ignore[operator]
    with_grad = eval_forwards_with_grad(settings.models)
    saved, samples = facts.get("memory_saved_activations"), record.memory.census.samples
    eval_batch = _eval_batch(record)
    if with_grad and _number(saved) and samples and eval_batch:
        out.update({"memory_eval_batch": eval_batch,
                    "memory_saving_inference_mode": int(saved / samples * eval_batch)})  # type: ignore[operator]
    return out


def _fp32(record: RunRecord) -> bool:
    """The model's parameters are fp32 (a model in bf16 or fp16 already keeps 16-bit activations)."""
    by_dtype = record.memory.census.parameters_by_dtype
    if by_dtype:
        return max(by_dtype, key=by_dtype.get) == "fp32"  # type: ignore[arg-type]
    dtypes = {d for m in record.settings.models for d in m.dtypes}
    return dtypes <= {"float32"} and bool(dtypes)
