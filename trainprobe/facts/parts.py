"""Parts facts: what the loop's own code, and the batch-making in the main process, spent time on.

From the cProfile window's call graph (probe/callgraph.py): each part is a call the loop made with
everything under it, so its time is summed by caller. A part "dominates" when it holds at least half
of the loop's own Python time; otherwise the time is spread and no one part is named as the cause.
Shares here are of the profiled window's loop (or data) time: cProfile slows Python calls more than
torch's ops, so they rank parts, and the step's own shares (loop_python_share) size them.
"""

from __future__ import annotations

from typing import Optional

from ..probe.callgraph import SETTABLE_AREAS
from ..record import RunRecord, TimePart
from .code import where
from .input import training_loader

__all__ = ["FAMILY", "FACTS", "compute", "removable"]

FAMILY = "parts"

FACTS = {
    "loop_busiest": ("text", "What the loop's own Python (the step's other part) spent the most time on, summed "
                     "by caller: a call the loop made with everything under it ('set_postfix() (tqdm/std.py)'), "
                     "a function of the script, the loop's own lines, or a framework's area ('logging "
                     "(self.log) (lightning)'); cProfile window, torch ops and syncs left out."),
    "loop_busiest_at": ("text", "Where it is: the script's function, or its line that made the call: "
                        "'file.py:line'."),
    "loop_busiest_where": ("text", "The same as words: 'in train.py:12' for the script's function, 'called at "
                           "train.py:40' for a call the script made."),
    "loop_busiest_share": ("share", "Its share of the loop's own Python time in the profiled steps."),
    "loop_dominated": ("bool", "One part holds at least half of the loop's own Python time (else it is spread "
                       "over several)."),
    "loop_parts": ("text", "The largest parts of the loop's own Python time with their shares: "
                   "'set_postfix() (tqdm/std.py) 41%, __iter__() (tqdm/std.py) 33%, add_noise() 5%'."),
    "loop_framework_share": ("share", "Of the loop's own Python time, the share in the code of the framework "
                             "that runs the loop (its hooks, logging, progress bar and loop code); None "
                             "without one."),
    "loop_framework_settable_share": ("share", "Of the loop's own Python time, the share in the framework's "
                                      "areas that its settings reduce (logging, loggers, callbacks, the progress "
                                      "bar); the rest of its code (hooks, its loop, the trainer) is a fixed cost "
                                      "per step that no setting removes. None without a framework."),
    "loop_machinery_share": ("share", "Of the loop's own Python time, the share in torch's and other libraries' "
                             "own per-step machinery: calls that ran torch ops under their Python (a library's "
                             "training step such as Pyro's svi.step, gpytorch's model call) and the optimizer's "
                             "zero_grad(); no change to the loop removes it (bookkeeping libraries such as a "
                             "progress bar or a logger run no ops, and are the loop's to change)."),
    "loop_removable_share": ("share", "The share of the step in the loop's own Python that the loop's code or "
                             "a framework's settings can remove: loop_python_share less the framework's fixed "
                             "code (loop_framework_share beyond loop_framework_settable_share) and torch's and "
                             "libraries' per-step machinery (loop_machinery_share), each a share of that Python."),
    "loop_framework_parts": ("text", "The framework's largest areas with their shares of the loop's own Python "
                             "time: 'hooks 31%, logging (self.log) 26%'."),
    "input_busiest": ("text", "With num_workers=0: what making the batches in the main process spent the most "
                      "time on, summed by caller ('__call__() (transformers/tokenization_utils_base.py)')."),
    "input_busiest_caller": ("text", "The dataset's function that called it: 'ReviewDataset.__getitem__()'."),
    "input_busiest_at": ("text", "Where that function is: 'file.py:line'."),
    "input_busiest_share": ("share", "Its share of the main process's batch-making time."),
    "input_tokenize_share": ("share", "Share of the time making batches spent in a tokenizer (the workers', "
                             "or with num_workers=0 the main process's)."),
    "loop_tensor_creations_per_step": ("per_step", "Tensors the script's own code made from Python per step "
                                       "outside data loading (torch.tensor, torch.randn, torch.zeros... with no "
                                       "device= at the call), counted by caller in the cProfile window: a "
                                       "DataLoader's collate, a dataset's __getitem__ and a framework's code are "
                                       "left out."),
    "loop_tensor_creation_share": ("share", "Share of the main process's time in the cProfile window spent "
                                   "in those calls themselves: on the CPU the random numbers, the zeros or the "
                                   "list's values are made there, before any copy (unknown in records made "
                                   "before it was read)."),
    "loop_tensor_creation_at": ("text", "The line that makes most of them: 'file.py:line'."),
    "loop_tensor_creation_call": ("text", "The call there: torch.randn, torch.tensor..."),
}

_DOMINATES = 0.5
_SHOWN_SHARE = 0.05  # parts below this share are left out of the lists
_SHOWN_PARTS = 5


def _python(part: TimePart) -> float:
    return max(0.0, part.seconds - part.op_seconds)


def _share_text(parts: list[tuple[str, float]]) -> str:
    return ", ".join(f"{name} {round(100 * share)}%" for name, share in parts[:_SHOWN_PARTS])


def _caller_at(caller: str, cwd: str) -> Optional[str]:
    """"name() /path/file.py:12" -> "file.py:12"."""
    return where(caller.rsplit(" ", 1)[-1], cwd) if caller else None


def _part_at(part: TimePart, record: RunRecord) -> Optional[str]:
    cwd = record.invocation.cwd
    if part.owner == "loop" or (part.owner != "framework" and not part.caller and part.owner != "user"):
        return where(record.settings.loop_at, cwd)  # called by the loop's own frame
    if part.owner == "user" and part.file:
        return where(f"{part.file}:{part.line}", cwd)
    return _caller_at(part.caller, cwd)


def _loop_facts(record: RunRecord) -> dict[str, object]:
    hot = record.hotspots
    parts = [p for p in hot.loop_parts if _python(p) > 0]
    if not hot.availability.available or not parts:
        return {}
    total = sum(_python(p) for p in parts)
    ranked = sorted(parts, key=_python, reverse=True)
    top = ranked[0]
    shares = [(p.label, _python(p) / total) for p in ranked if _python(p) / total >= _SHOWN_SHARE]
    at = _part_at(top, record)
    out: dict[str, object] = {
        "loop_busiest": top.label,
        "loop_busiest_at": at,
        "loop_busiest_where": None if at is None else (f"in {at}" if top.owner in ("user", "loop") else f"called at {at}"),
        "loop_busiest_share": _python(top) / total,
        "loop_dominated": _python(top) / total >= _DOMINATES,
        "loop_parts": _share_text(shares),
        "loop_machinery_share": sum(_python(p) for p in parts if _machinery(p)) / total,
    }
    framework = record.settings.framework
    if framework is not None and framework.name in ("lightning", "transformers"):
        areas = [(p.area, _python(p) / total) for p in ranked if p.owner == "framework"]
        out["loop_framework_share"] = sum(share for _, share in areas)
        out["loop_framework_settable_share"] = sum(share for area, share in areas if area in SETTABLE_AREAS)
        out["loop_framework_parts"] = _share_text([a for a in areas if a[1] >= _SHOWN_SHARE])
    return out


def removable(values: dict[str, object]) -> dict[str, object]:
    """loop_removable_share, from loop_python_share (a fact that combines families) and this family's
    shares of that Python: what host-overhead-in-loop's gain and severity are about."""
    python = values.get("loop_python_share")
    if not isinstance(python, (int, float)):
        return {"loop_removable_share": None}
    fixed = 0.0
    if isinstance(values.get("loop_framework_settable_share"), (int, float)):
        fixed = values["loop_framework_share"] - values["loop_framework_settable_share"]  # type: ignore[operator]
    machinery = values.get("loop_machinery_share")
    machinery = machinery if isinstance(machinery, (int, float)) else 0.0
    return {"loop_removable_share": python * max(0.0, 1.0 - fixed - machinery)}


def _machinery(part: TimePart) -> bool:
    """A call whose Python is torch's or a library's per-step machinery rather than the loop's bookkeeping:
    it ran torch ops under its Python (a library's training step wraps the model's ops, as Pyro's svi.step
    does), or it is the optimizer's zero_grad() (a loop over the parameters the loop must make). A
    notebook's batch-1 loop was called host-bound on zero_grad's 90% of its Python (test set 5)."""
    if part.owner not in ("torch", "library"):
        return False
    if part.label.startswith("zero_grad("):
        return True
    return part.op_seconds >= _MACHINERY_OPS * part.seconds > 0 and "tensorboard" not in part.file


# A call that spends this share of its time in torch ops is doing the step's work (Pyro's svi.step: 56%); a
# stray free or copy under a bookkeeping call (multiprocessing's finalizers at an epoch's end) is not.
_MACHINERY_OPS = 0.1


def _caller_name(part: TimePart, dataset_type: str) -> str:
    name = part.caller.split("(", 1)[0] if part.caller else ""
    if name in ("__getitem__", "__getitems__", "__iter__", "__next__") and dataset_type:
        name = f"{dataset_type.rsplit('.', 1)[-1]}.{name}"
    return f"{name}()" if name else ""


def _data_facts(record: RunRecord) -> dict[str, object]:
    loader = training_loader(record)
    hot = record.hotspots
    if loader is not None and loader.num_workers > 0:
        return {"input_tokenize_share": hot.worker_categories.get("tokenize")}
    parts = list(hot.data_parts)
    total = hot.phase_seconds.get("data") or sum(p.seconds for p in parts)
    if not hot.availability.available or not parts or total <= 0 or loader is None:
        return {}
    top = max(parts, key=lambda p: p.seconds)
    if top.owner == "user" and top.file:  # the dataset's own code: it is its own caller
        caller = _caller_name(TimePart(caller=f"{top.function}() {top.file}:{top.line}"), loader.dataset_type)
        at = where(f"{top.file}:{top.line}", record.invocation.cwd)
    else:
        caller = _caller_name(top, loader.dataset_type)
        at = _caller_at(top.caller, record.invocation.cwd)
    return {
        "input_busiest": top.label,
        "input_busiest_caller": caller or None,
        "input_busiest_at": at,
        "input_busiest_share": min(1.0, top.seconds / total),
        "input_tokenize_share": min(1.0, sum(p.seconds for p in parts if p.area == "tokenize") / total),
    }


def _creation_facts(record: RunRecord) -> dict[str, object]:
    hot = record.hotspots
    if not hot.availability.available or not hot.steps:
        return {}
    made = [c for c in hot.creations if c.context in ("loop", "model") and c.on_device is not True]
    out: dict[str, object] = {"loop_tensor_creations_per_step": sum(c.calls for c in made) / hot.steps}
    timed = all(c.seconds is not None for c in made)
    out["loop_tensor_creation_share"] = (min(1.0, sum(c.seconds or 0.0 for c in made) / hot.window)
                                         if timed and hot.window > 0 else None)
    if made:
        # The line that costs most where the calls were timed (a batch of random numbers outweighs a few
        # constants made as often), else the one called most.
        top = max(made, key=lambda c: (c.seconds, c.calls) if timed else (0.0, c.calls))
        out["loop_tensor_creation_at"] = where(top.at, record.invocation.cwd)
        out["loop_tensor_creation_call"] = top.function
    return out


def compute(record: RunRecord) -> dict[str, object]:
    if not record.hotspots.phase_seconds:
        return {}  # no call graph: a record made before it was read, or no cProfile window
    out: dict[str, object] = {}
    out.update(_loop_facts(record))
    out.update(_data_facts(record))
    out.update(_creation_facts(record))
    return out
