"""Settings facts: devices, precision, optimizer, model and debugging switches, the outcome."""

from __future__ import annotations

from ..record import ModelInfo, RunRecord, Settings

__all__ = ["FAMILY", "FACTS", "compute"]

FAMILY = "settings"

FACTS = {
    "cuda_available": ("bool", "torch saw a CUDA GPU."),
    "cuda_used": ("bool", "Any parameter or batch was on a CUDA device."),
    "cpu_only": ("bool", "The run trained on the CPU only (no CUDA device used)."),
    "gpu_count": ("count", "GPUs visible to the run."),
    "gpus_used": ("count", "Distinct CUDA devices the run put tensors on."),
    "model_on_cpu": ("bool", "A GPU was available but the model trained on the CPU."),
    "data_parallel": ("bool", "The model is wrapped in torch.nn.DataParallel."),
    "distributed": ("bool", "torch.distributed was initialized (DDP/FSDP)."),
    "world_size": ("count", "Processes in the distributed job."),
    "compiled": ("bool", "A torch.compile'd module or function ran."),
    "autocast_used": ("bool", "Training forwards ran under torch.autocast."),
    "autocast_dtype": ("text", "Autocast dtype (float16, bfloat16)."),
    "grad_scaler_used": ("bool", "A GradScaler scaled the loss."),
    "cudnn_benchmark": ("bool", "torch.backends.cudnn.benchmark."),
    "float32_matmul_precision": ("text", "torch.get_float32_matmul_precision(): highest, high, medium."),
    "tf32_enabled": ("bool", "fp32 matmuls may use TF32 (allow_tf32 or precision high/medium)."),
    "anomaly_detection": ("bool", "torch.autograd anomaly detection was on."),
    "activation_checkpointing": ("bool", "Activation (gradient) checkpointing was on: module forwards ran again "
                                 "inside backward (seen while the probe hooks every module, the first steps), or "
                                 "the framework's setting says so (the Trainer's gradient_checkpointing=True)."),
    "autograd_profiler_enabled": ("bool", "The script's own autograd profiler / emit_nvtx was on."),
    "cuda_launch_blocking": ("bool", "CUDA_LAUNCH_BLOCKING=1 was set."),
    "debug_apis": ("text", "Debugging switches left on, comma-separated (empty when none)."),
    "optimizer_type": ("text", "Class name of the first optimizer (Adam, AdamW, SGD...)."),
    "optimizer_weight_decay": ("x", "weight_decay of the first optimizer."),
    "optimizer_fused": ("bool", "fused= of the first optimizer; torch's default (not fused) "
                        "counts as false."),
    "optimizer_foreach": ("bool", "foreach= of the first optimizer (None: torch's default)."),
    "optimizer_lr": ("x", "Learning rate of the first optimizer."),
    "optimizer_steps": ("count", "optimizer.step() calls seen."),
    "scheduler_count": ("count", "LR schedulers constructed."),
    "scheduler_steps": ("count", "scheduler.step() calls seen, all schedulers."),
    "zero_grad_calls": ("count", "zero_grad() calls seen."),
    "zero_grad_set_to_none_false": ("count", "zero_grad(set_to_none=False) calls seen."),
    "model_type": ("text", "Class name of the trained model."),
    "model_params": ("count", "Parameters of the trained model."),
    "model_trainable_share": ("share", "Of those, the share that trains (requires_grad): below 1 where parts are frozen "
                              "(a LoRA fine-tune trains under 1% of them)."),
    "model_dtype": ("text", "Parameter dtypes of the model, comma-separated."),
    "has_conv": ("bool", "The model has convolutions."),
    "has_batchnorm": ("bool", "The model has batch normalization."),
    "channels_last": ("bool", "4-d weights are in channels_last memory format."),
    "input_shape_count": ("count", "Distinct input shapes the model saw (1 = fixed shapes)."),
    "eval_calls": ("count", "Eval-mode forwards of the model."),
    "eval_calls_with_grad": ("count", "Eval-mode forwards that still built an autograd graph; a trained model's made "
                             "by the script before its first training forward (a model summary or FLOP count) are "
                             "left out."),
    "frozen_eval_calls_with_grad": ("count", "Of eval_calls_with_grad, those of models never run in training mode: "
                                    "a DQN's target network, a distillation teacher, an EMA copy."),
    "eval_with_grad_only_frozen": ("bool", "Every eval-mode forward that built a graph was one of a model never "
                                   "run in training mode (none was validation of the trained model)."),
    "library_eval_calls_with_grad": ("count", "Of eval_calls_with_grad, those of a trained model that a library's "
                                     "code called, not a line of the script (an RL library computing its targets)."),
    "eval_with_grad_by": ("text", "The module of the library whose code called the first of those."),
    "eval_with_grad_only_library": ("bool", "None of the eval-mode forwards that built a graph was the script's own: "
                                    "each was a library's call, or a model never run in training mode, and at least "
                                    "one a library's call."),
    "outcome_status": ("text", "How the run ended: completed, stopped, failed, killed, timeout..."),
    "first_run_steps": ("count", "In a second run with windows fitted to a short script (probe/refit.py), the "
                        "training steps the script made in its first run, where it ended by itself; None otherwise."),
    "oom": ("bool", "The run ran out of memory (CUDA OOM or the OOM killer)."),
    "steps_recorded": ("count", "Steps recorded in all phases."),
}


def _cuda_devices(record: RunRecord) -> set[str]:
    """Distinct CUDA devices seen: "cuda:1" from the models' parameters; a bare "cuda"
    (a device type, from batches) counts only when nothing more precise is known."""
    seen = set(record.settings.devices_used)
    for m in record.settings.models:
        seen.update(m.devices)
    indexed = {d for d in seen if d.startswith("cuda:")}
    return indexed or ({"cuda"} if "cuda" in seen else set())


def _short(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1] if qualified else ""


def _debug_apis(s) -> str:
    names = []
    if s.anomaly_detection:
        names.append("anomaly detection")
    if s.autograd_profiler_enabled:
        names.append("autograd profiler / emit_nvtx")
    if s.cuda_launch_blocking:
        names.append("CUDA_LAUNCH_BLOCKING=1")
    if s.sync_debug_mode:
        names.append("CUDA sync debug mode")
    return ", ".join(names)


def _tf32(s) -> object:
    if s.cuda_matmul_allow_tf32 is not None:
        return s.cuda_matmul_allow_tf32 or s.float32_matmul_precision in ("high", "medium")
    if s.float32_matmul_precision is None:
        return None
    return s.float32_matmul_precision in ("high", "medium")


def eval_forwards_with_grad(models: tuple[ModelInfo, ...]) -> int:
    """The eval-mode forwards that built an autograd graph, less a trained model's that the script made before its
    first training forward: a model summary or FLOP count (deep-person-reid's compute_model_complexity, test set
    28) is not its validation."""
    return sum(m.eval_calls_with_grad - (m.eval_calls_with_grad_before_training if m.train_calls else 0)
               for m in models)


def _model_facts(record: RunRecord) -> dict[str, object]:
    models = record.settings.models
    if not models:
        return {}
    m = max(models, key=lambda x: x.train_calls)
    with_grad = eval_forwards_with_grad(models)
    frozen = sum(x.eval_calls_with_grad for x in models if not x.train_calls)
    # A trained model's eval forwards with autograd that a library's code made: the user has no line to wrap.
    library = sum(x.eval_calls_with_grad_by_library for x in models if x.train_calls)
    by = next((x.eval_with_grad_by for x in models if x.train_calls and x.eval_with_grad_by), None)
    return {
        "model_type": _short(m.type),
        "model_params": m.params,
        "model_trainable_share": m.trainable_params / m.params if m.params else None,
        "model_dtype": ", ".join(m.dtypes),
        "has_conv": m.has_conv,
        "has_batchnorm": m.has_batchnorm,
        "channels_last": m.channels_last,
        "input_shape_count": len(m.input_shapes),
        "eval_calls": sum(x.eval_calls for x in models),
        "eval_calls_with_grad": with_grad,
        "frozen_eval_calls_with_grad": frozen,
        "eval_with_grad_only_frozen": with_grad > 0 and frozen == with_grad,
        "library_eval_calls_with_grad": library,
        "eval_with_grad_by": by,
        "eval_with_grad_only_library": library > 0 and frozen + library == with_grad,
        "data_parallel": record.settings.data_parallel or m.wrapper == "DataParallel",
    }


def _optimizer_facts(record: RunRecord) -> dict[str, object]:
    opts = record.settings.optimizers
    if not opts:
        return {}
    o = opts[0]
    return {
        "optimizer_type": _short(o.type),
        "optimizer_weight_decay": o.weight_decay,
        "optimizer_fused": bool(o.fused),
        "optimizer_foreach": o.foreach,
        "optimizer_lr": o.lr,
    }


def _checkpointing(s: Settings) -> dict[str, object]:
    framework = s.framework.settings.get("gradient_checkpointing") if s.framework is not None else None
    # (A record made before the probe counted them holds 0: only a framework's setting tells there.)
    return {"activation_checkpointing": s.recomputed_forwards > 0 or framework == "True"}


def compute(record: RunRecord) -> dict[str, object]:
    s = record.settings
    env = record.environment
    cuda_devices = _cuda_devices(record)
    available = s.cuda_available or env.cuda_available
    out: dict[str, object] = {
        "cuda_available": available,
        "cuda_used": s.cuda_used,
        "cpu_only": not s.cuda_used,
        "gpu_count": env.gpu_count,
        "gpus_used": max(len(cuda_devices), s.world_size or 0) if s.cuda_used else 0,
        "model_on_cpu": available and not s.cuda_used and env.gpu_count > 0,
        "data_parallel": s.data_parallel,
        "distributed": s.distributed,
        "world_size": s.world_size,
        "compiled": s.compiled,
        "autocast_used": s.autocast_forwards > 0,
        "autocast_dtype": s.autocast_dtype,
        "grad_scaler_used": s.grad_scaler_used,
        "cudnn_benchmark": s.cudnn_benchmark,
        "float32_matmul_precision": s.float32_matmul_precision,
        "tf32_enabled": _tf32(s),
        "anomaly_detection": s.anomaly_detection,
        **_checkpointing(s),
        "autograd_profiler_enabled": s.autograd_profiler_enabled,
        "cuda_launch_blocking": s.cuda_launch_blocking,
        "debug_apis": _debug_apis(s),
        "optimizer_steps": s.optimizer_steps,
        "scheduler_count": len(s.schedulers),
        "scheduler_steps": sum(x.steps for x in s.schedulers),
        "zero_grad_calls": s.zero_grad_calls,
        "zero_grad_set_to_none_false": s.zero_grad_set_to_none_false,
        "outcome_status": record.outcome.status,
        "first_run_steps": record.invocation.options.get("first_run_steps"),
        "oom": record.outcome.oom,
        "steps_recorded": len(record.steps),
    }
    out.update(_optimizer_facts(record))
    out.update(_model_facts(record))
    return out
