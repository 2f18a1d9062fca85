"""Which settings differ between two runs, and whether they ran the same script on the same machine.

The values are the runs' facts (``num_workers``, ``autocast_used``...: the
numbers their own reports show) and, for the software and the machine, their
records' environment. Only the settings that differ are kept; a value one run
could not tell (a trace holds no DataLoader settings) differs only from a
known value, and is shown as unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from ..jsonio import JsonMixin
from ..findings import FactValue
from ..record import RunRecord
from ..report.sections import script_name

__all__ = ["SettingChange", "SETTINGS", "settings_changed", "setting_values", "mismatch_flags"]


@dataclass(frozen=True)
class SettingChange(JsonMixin):
    name: str = ""  # the fact or record field compared
    label: str = ""  # as people read it
    unit: str = ""  # the fact's unit, to format the values (display.by_unit)
    baseline: FactValue = None
    candidate: FactValue = None


_Read = Callable[[RunRecord, dict], FactValue]


def _fact(name: str) -> _Read:
    return lambda record, facts: facts.get(name)


def _autocast(record: RunRecord, facts: dict) -> FactValue:
    if facts.get("autocast_used") is None:
        return None
    return (facts.get("autocast_dtype") or "on") if facts.get("autocast_used") else "off"


def _machine(record: RunRecord, facts: dict) -> FactValue:
    return record.environment.hostname_hash


def _device(record: RunRecord, facts: dict) -> FactValue:
    return facts.get("gpu_name") or record.environment.cpu_model


def _script(record: RunRecord, facts: dict) -> FactValue:
    """The script's file name: a class's copies of one script in their own folders are the same script."""
    return script_name(record)


def _args(record: RunRecord, facts: dict) -> FactValue:
    return " ".join(record.invocation.args)


# (name, label, unit, how to read it), in the order a reader looks for them.
SETTINGS: tuple[tuple[str, str, str, Union[str, _Read]], ...] = (
    ("batch_size", "batch size", "count", "batch_size"),
    ("num_workers", "num_workers", "count", "num_workers"),
    ("pin_memory", "pin_memory", "bool", "pin_memory"),
    ("persistent_workers", "persistent_workers", "bool", "persistent_workers"),
    ("prefetch_factor", "prefetch_factor", "count", "prefetch_factor"),
    ("autocast", "AMP (autocast)", "text", _autocast),
    ("grad_scaler_used", "GradScaler", "bool", "grad_scaler_used"),
    ("compiled", "torch.compile", "bool", "compiled"),
    ("channels_last", "channels_last", "bool", "channels_last"),
    ("cudnn_benchmark", "cudnn.benchmark", "bool", "cudnn_benchmark"),
    ("tf32_enabled", "TF32", "bool", "tf32_enabled"),
    ("optimizer_type", "optimizer", "text", "optimizer_type"),
    ("optimizer_lr", "learning rate", "x", "optimizer_lr"),
    ("optimizer_weight_decay", "weight decay", "x", "optimizer_weight_decay"),
    ("optimizer_fused", "optimizer fused", "bool", "optimizer_fused"),
    ("optimizer_foreach", "optimizer foreach", "bool", "optimizer_foreach"),
    ("zero_grad_set_to_none_false", "zero_grad(set_to_none=False) calls", "count", "zero_grad_set_to_none_false"),
    ("debug_apis", "debugging switches", "text", "debug_apis"),
    ("torch_threads", "torch threads", "count", "torch_threads"),
    ("model_type", "model", "text", "model_type"),
    ("model_dtype", "model dtype", "text", "model_dtype"),
    ("torch", "torch", "text", lambda record, facts: record.environment.torch),
    ("cuda", "CUDA (torch build)", "text", lambda record, facts: record.environment.torch_cuda_build),
    ("python", "Python", "text", lambda record, facts: record.environment.python),
    ("device", "device", "text", _device),
    ("usable_cores", "usable cores", "count", "usable_cores"),
    ("machine", "machine (hashed host name)", "text", _machine),
    ("script", "script", "text", _script),
    ("args", "script arguments", "text", _args),
)


def setting_values(record: RunRecord, facts: dict) -> dict[str, FactValue]:
    """Every compared setting of one run, by name."""
    out = {}
    for name, _label, _unit, read in SETTINGS:
        reader = _fact(read) if isinstance(read, str) else read
        out[name] = reader(record, facts)
    return out


def _blank(value: FactValue) -> bool:
    return value is None or value == ""


def settings_changed(base: dict[str, FactValue], candidate: dict[str, FactValue]) -> tuple[SettingChange, ...]:
    """The settings whose values differ (from setting_values of each run); two unknowns are not a change."""
    changes = []
    for name, label, unit, _read in SETTINGS:
        a, b = base.get(name), candidate.get(name)
        if a == b or (_blank(a) and _blank(b)):
            continue
        changes.append(SettingChange(name=name, label=label, unit=unit, baseline=a, candidate=b))
    return tuple(changes)


def _which(changes: tuple[SettingChange, ...], names: tuple[str, ...]) -> str:
    labels = [c.label for c in changes if c.name in names]
    return ", ".join(labels) + (" differ" if len(labels) != 1 or labels[0].endswith("s") else " differs")  # "arguments differ"


def mismatch_flags(changes: tuple[SettingChange, ...]) -> tuple[str, ...]:
    """Sentences for what makes two runs less comparable than one change: another machine, another script."""
    names = {c.name for c in changes}
    flags = []
    if names & {"machine", "device", "usable_cores"}:
        what = _which(changes, ("machine", "device", "usable_cores"))
        flags.append(f"different machines ({what}): part of the difference is the hardware, not the change")
    if names & {"script", "args"}:
        what = _which(changes, ("script", "args"))
        flags.append(f"different scripts ({what}): every change between them is part of the difference")
    if names & {"torch", "cuda", "python"}:
        flags.append(f"different software ({_which(changes, ('torch', 'cuda', 'python'))})")
    return tuple(flags)
