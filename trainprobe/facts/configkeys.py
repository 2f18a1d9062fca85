"""Config-file facts: which line of the run's configuration files sets each knob a fix changes.

A run configured by a file (Hydra, yacs, LightningCLI, LLaMA-Factory's YAML, a MONAI bundle's JSON)
is changed in that file: ``num_workers: 8`` at ``mvtec.yaml:7``, not the ``DataLoader(...)`` a
library builds from it. The probe read the files the script opened (probe/configfiles.py); these
facts find each knob's key there, by the names the knob goes by in the field, and check it against
the value the run really used where the record holds that value (the loader's workers and batch
size, the framework's precision), so that a key the run overrode or never read is not named. A
command-line ``key=value`` that overrides the file (Hydra, OmegaConf, LLaMA-Factory) is named too.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from ..record import ConfigEntry, ConfigFile, RunRecord
from .code import where
from .input import training_loader

__all__ = ["FAMILY", "FACTS", "compute", "KNOBS"]

FAMILY = "code"

# The knobs, and the names their keys go by (compared without case: yacs writes NUM_WORKERS), most usual first.
KNOBS: dict[str, tuple[str, ...]] = {
    "workers": ("num_workers", "dataloader_num_workers", "workers", "n_workers", "num_worker", "workers_per_gpu"),
    "batch_size": ("per_device_train_batch_size", "train_batch_size", "batch_size", "micro_batch_size",
                   "batch_size_per_gpu", "samples_per_gpu", "train_micro_batch_size_per_gpu"),
    "grad_accumulation": ("gradient_accumulation_steps", "accumulate_grad_batches", "grad_accum_steps",
                          "accumulation_steps", "accum_iter", "grad_accumulation", "accum_grad"),
    "gradient_checkpointing": ("gradient_checkpointing", "grad_checkpointing", "activation_checkpointing",
                               "use_gradient_checkpointing", "use_checkpoint"),
    "compile": ("compile", "torch_compile", "use_compile", "torchcompile"),
    "pin_memory": ("pin_memory", "dataloader_pin_memory", "pin_mem"),
    "log_interval": ("log_every_n_steps", "logging_steps", "log_interval", "log_every", "log_freq", "print_freq"),
}
# Sections that configure evaluation, whose loader settings are not the training loop's.
_EVAL_PARTS = frozenset({"val", "valid", "validation", "test", "eval", "evaluation", "val_dataloader",
                         "test_dataloader", "eval_dataloader", "predict", "inference", "val_dataset",
                         "test_dataset", "validate", "evaluator"})

FACTS: dict[str, tuple[str, str]] = {}
for _knob in KNOBS:
    FACTS.update({
        f"config_{_knob}_at": ("text", f"The line of a configuration file the script read that sets {_knob} "
                               "(the key checked against the run's own value where the record holds it): "
                               "'file.yaml:line'."),
        f"config_{_knob}_now": ("text", "That line as the file writes it, without its comment: 'num_workers: 8'."),
        f"config_{_knob}_set": ("text", "How the file writes that key with another value: the key in its format "
                                "with %s for the value ('num_workers: %s', 'workers = %s', '\"num_workers\": %s')."),
        f"config_{_knob}_override": ("text", "The command line's key=value that overrides that key (Hydra, "
                                     "OmegaConf, LLaMA-Factory): 'num_workers=8'."),
        f"config_{_knob}_under": ("text", "For a key the file lacks, that the framework reads from it (a "
                                  "Trainer YAML's torch_compile, a LightningCLI trainer's "
                                  "accumulate_grad_batches): the section's line it goes under ('trainer:'); "
                                  "config_" + _knob + "_at is that line and _now is None."),
        f"config_{_knob}_beside": ("text", "The same for a file whose framework keys sit at the top: one of them, "
                                   "which the added line goes beside ('per_device_train_batch_size: 1')."),
    })
for _dtype, _name in (("bf16", "bfloat16"), ("fp16", "float16")):
    FACTS.update({
        f"config_{_dtype}": ("text", f"The line that turns on {_name} mixed precision in the run's configuration "
                             "file, in the file's format and the framework's spelling ('precision: bf16-mixed', "
                             "'bf16: true', 'mixed_precision = \"bf16\"')."),
        f"config_{_dtype}_at": ("text", "Where it goes: the line of the precision key it replaces, else the line of "
                                "the section it belongs in (Lightning's trainer:) or of a sibling key of the "
                                "framework's (a TrainingArguments field): 'file.yaml:line'."),
        f"config_{_dtype}_now": ("text", "The line it replaces as written now ('precision: 32'); None when it is "
                                 "added."),
        f"config_{_dtype}_under": ("text", "For a line that is added to a section: the section's line "
                                   "('trainer:')."),
        f"config_{_dtype}_beside": ("text", "For a line that is added among the framework's keys: one of them "
                                    "('per_device_train_batch_size: 1')."),
    })

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "none", "null", "~")


def _last_part(key: str) -> str:
    """A key's own name, lower case: "num_workers" for "data.num_workers" or argbind's "val/DataLoader.num_workers"."""
    return re.split(r"[./]", key.lower())[-1]


def _value(entry: ConfigEntry) -> str:
    """The entry's value as text, without quotes or a trailing comma."""
    text = entry.text
    for sep in (":", "="):
        head, found, rest = text.partition(sep)
        if found and _last_part(head.strip().strip("\"'")) == _last_part(entry.key):
            return rest.strip().rstrip(",").strip().strip("\"'")
    return ""


def _same(written: str, live: object) -> bool:
    """The file's value is the value the run used (a bool, a number or a word, in any of their spellings)."""
    a, b = written.strip().lower(), str(live).strip().lower()
    if a in _TRUE or a in _FALSE or b in _TRUE or b in _FALSE:
        return (a in _TRUE) == (b in _TRUE) and (a in _FALSE) == (b in _FALSE)
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


def _key_line(name: str, kind: str) -> str:
    """A key's line in a file of ``kind``, with %s for its value; ``name`` as the file writes it (quoted in JSON)."""
    return f"{name} = %s" if kind == "toml" else f"{name}: %s"


def _setter(entry: ConfigEntry, kind: str) -> str:
    return _key_line(entry.text.split(":", 1)[0].split("=", 1)[0].strip(), kind)


def _candidates(files: tuple[ConfigFile, ...], names: tuple[str, ...]) -> list[tuple[ConfigFile, ConfigEntry]]:
    """The value keys named one of ``names``, outside evaluation sections: by name (the usual first), then
    in the order the files were read and their lines."""
    found = []
    for name in names:
        for file in files:
            for entry in file.entries:
                parts = re.split(r"[./]", entry.key.lower())  # argbind's scopes: "val/DataLoader.num_workers"
                if entry.section or parts[-1] != name or _EVAL_PARTS.intersection(parts[:-1]):
                    continue
                found.append((file, entry))
    return found


_OVERRIDE = re.compile(r"^[+~]{0,2}(?P<key>[A-Za-z_][\w.\-]*)=(?P<value>.*)$")


def _override(args: tuple[str, ...], entry: ConfigEntry) -> Optional[str]:
    """The command line's key=value for the entry's key, by its last part: its dotted path (a Hydra group's file
    holds loader.num_workers as num_workers), or its name alone (LLaMA-Factory flattens its YAML)."""
    last = _last_part(entry.key)
    for token in args:
        m = _OVERRIDE.match(token)
        if m and _last_part(m.group("key")) == last:
            return token
    return None


def _live(record: RunRecord, knob: str) -> Optional[object]:
    """The value the run used for ``knob``, where the record holds it."""
    loader = training_loader(record)
    fw = record.settings.framework
    s = fw.settings if fw is not None else {}
    if knob == "workers":
        return loader.num_workers if loader is not None else None
    if knob == "batch_size":
        return loader.batch_size if loader is not None and loader.batch_size else None
    if knob == "grad_accumulation":
        return s.get("gradient_accumulation_steps") or s.get("accumulate_grad_batches")
    if knob == "log_interval":
        return s.get("logging_steps") or s.get("log_every_n_steps")
    if knob == "pin_memory":
        return loader.pin_memory if loader is not None else None
    return None


# The framework's own key for a knob, where a configuration file the framework reads may add it: the Trainer's
# TrainingArguments fields (LLaMA-Factory's YAML), the Trainer's arguments under a LightningCLI config's trainer:.
_FRAMEWORK_KEYS = {
    "transformers": {"workers": "dataloader_num_workers", "compile": "torch_compile",
                     "pin_memory": "dataloader_pin_memory", "grad_accumulation": "gradient_accumulation_steps",
                     "log_interval": "logging_steps", "batch_size": "per_device_train_batch_size"},
    "lightning": {"grad_accumulation": "accumulate_grad_batches", "log_interval": "log_every_n_steps"},
}


def _trainer_group(file: ConfigFile) -> bool:
    """A Hydra config group's file for the Trainer (configs/trainer/default.yaml): its top-level keys are the
    Trainer's arguments."""
    return os.path.basename(os.path.dirname(file.path)).lower() == "trainer"


def _framework_place(record: RunRecord) -> Optional[tuple[ConfigFile, ConfigEntry]]:
    """Where the framework's settings sit in a file it reads: a LightningCLI config's trainer: section, or a line
    of the Trainer's fields in a flat YAML; None when the script makes the settings call itself (that call is
    the place, and a file's keys may be the script's own) or no file has them."""
    fw = record.settings.framework
    if fw is None or fw.config_at is not None:
        return None
    for file in record.settings.config_files:
        if fw.name in ("lightning", "fabric") and _trainer_group(file):
            places = [e for e in file.entries if "." not in e.key][:1]  # the group's file is the trainer: its top
        elif fw.name in ("lightning", "fabric"):
            places = [e for e in file.entries if e.section and e.key.lower().rsplit(".", 1)[-1] == "trainer"
                      and e.key.count(".") <= 1]
        elif fw.name == "transformers":
            places = sorted((e for e in file.entries if not e.section and e.key.lower() in _TRAINING_ARGUMENTS),
                            key=lambda e: _TRAINING_ARGUMENTS.index(e.key.lower()))
        else:
            return None
        if places:
            return file, places[0]
    return None


def _added(file: ConfigFile, place: ConfigEntry, key: str) -> tuple[str, str]:
    """How the file writes ``key`` (with %s for its value), and which fact says where it goes."""
    setter = _key_line(f'"{key}"' if file.format == "json" else key, file.format)
    return setter, ("under" if place.section else "beside")


def _knob_facts(record: RunRecord, knob: str, cwd: str) -> dict[str, object]:
    files = record.settings.config_files
    live = _live(record, knob)
    for file, entry in _candidates(files, KNOBS[knob]):
        override = _override(record.invocation.args, entry)
        used = override.split("=", 1)[1] if override is not None else _value(entry)
        if live is not None and not _same(used, live):
            continue  # the run took this knob from elsewhere: this key is not the one to change
        return {f"config_{knob}_at": where(f"{file.path}:{entry.line}", cwd),
                f"config_{knob}_now": entry.text,
                f"config_{knob}_set": _setter(entry, file.format),
                f"config_{knob}_override": override}
    fw = record.settings.framework
    key = _FRAMEWORK_KEYS.get(fw.name if fw is not None else "", {}).get(knob)
    found = _framework_place(record) if key else None
    if found is None or _candidates(files, (key,)):
        return {}  # (a key of that name whose value the run did not use: the file is not where it was set)
    file, place = found
    setter, where_to = _added(file, place, key)  # type: ignore[arg-type]
    return {f"config_{knob}_at": where(f"{file.path}:{place.line}", cwd), f"config_{knob}_set": setter,
            f"config_{knob}_{where_to}": place.text}


# The framework's precision key, what it is called, and how it spells each half precision.
_PRECISION_KEYS = ("precision", "mixed_precision", "bf16", "fp16", "use_bf16", "use_fp16")
# TrainingArguments' fields that place an added one, the training block's first (a YAML's "### train" lines).
_TRAINING_ARGUMENTS = ("per_device_train_batch_size", "gradient_accumulation_steps", "learning_rate",
                       "num_train_epochs", "lr_scheduler_type", "logging_steps", "output_dir")


def _literal(value: str, kind: str, text: bool) -> str:
    if not text:
        return value  # true, a number
    return value if kind == "yaml" else f'"{value}"'


def _precision_value(key: str, framework: Optional[str], dtype: str) -> Optional[tuple[str, bool]]:
    """The value the key takes for ``dtype`` mixed precision, and whether it is text; None when the key cannot say
    it (fp16: true does not give bf16), or when what it accepts is the script's own business (a precision key of a
    script without a framework that owns that key)."""
    key = key.lower()
    if key in ("bf16", "use_bf16", "fp16", "use_fp16"):
        return ("true", False) if key.endswith(dtype) else None
    if key == "precision" and framework in ("lightning", "fabric"):
        return ("bf16-mixed" if dtype == "bf16" else "16-mixed"), True
    if key == "mixed_precision" and framework == "accelerate":
        return dtype, True
    return None


def _half_precision(record: RunRecord, dtype: str, cwd: str) -> dict[str, object]:
    files = record.settings.config_files
    fw = record.settings.framework
    framework = fw.name if fw is not None else None
    # A key of the framework's own that says the precision: replaced with the dtype's value.
    for file, entry in _candidates(files, _PRECISION_KEYS):
        name = entry.key.rsplit(".", 1)[-1]
        parts = entry.key.lower().split(".")
        if framework in ("lightning", "fabric") and name.lower() == "precision" and "trainer" not in parts \
                and "fabric" not in parts and not _trainer_group(file):
            continue  # a precision of the script's own, not the Trainer's
        value = _precision_value(name, framework, dtype)
        if value is None:
            continue
        written = _setter(entry, file.format) % _literal(value[0], file.format, value[1])
        return {f"config_{dtype}": written, f"config_{dtype}_at": where(f"{file.path}:{entry.line}", cwd),
                f"config_{dtype}_now": entry.text}
    # None: the line is added, where the framework reads its settings.
    found = _framework_place(record)
    if found is None:
        return {}
    file, place = found
    key = "precision" if framework in ("lightning", "fabric") else dtype  # the Trainer's bf16 / fp16 switch
    value = _precision_value(key, framework, dtype)
    if value is None:
        return {}
    setter, where_to = _added(file, place, key)
    return {f"config_{dtype}": setter % _literal(value[0], file.format, value[1]),
            f"config_{dtype}_at": where(f"{file.path}:{place.line}", cwd), f"config_{dtype}_{where_to}": place.text}


def compute(record: RunRecord) -> dict[str, object]:
    if not record.settings.config_files:
        return {}
    cwd = record.invocation.cwd
    out: dict[str, object] = {}
    for knob in KNOBS:
        out.update(_knob_facts(record, knob, cwd))
    for dtype in ("bf16", "fp16"):
        out.update(_half_precision(record, dtype, cwd))
    return out

