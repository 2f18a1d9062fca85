"""Where the main process's profiled time went: by step phase, and inside the loop's own code (and the
batch-making, when the main process makes the batches) by what the loop called, summed by caller.

cProfile keeps, for every function, its own time and its time under each caller (one level of the
call graph). Walking that graph from the functions the loop called gives each call a context: the
DataLoader's ``__next__`` starts ``data``, a module's ``__call__`` starts ``model``, autograd's
``backward`` starts ``backward``, ``torch.optim`` starts ``optimizer`` (an optimizer's closure and
trainprobe's own hooks aside), as the step clock (probe/clock.py) splits the step. The outermost
phase wins, as in the clock: a transform module called while a batch is made is data loading.

Inside the ``loop`` context (the step's "other" part) every function's own time is charged to a part:
the call the loop made that it runs under, with everything below it (``tqdm.set_postfix`` with tqdm's
internals, ``add_noise()`` with its ``torch.randn_like``). A part that holds most of the loop's time and
is the user's own function is opened up into its calls and its own lines, so that no one function is
named as "the busiest" when the time is spread over what it calls. When a framework runs the loop
(Lightning, a Hugging Face Trainer), its own code is charged to its areas (progress bar, logging,
hooks) and the user's hooks (``training_step``) to themselves, with the framework's calls inside them
(``self.log``) charged to the framework. Where a function is called from several places, its time is
split between them in proportion to the time each call took, the usual approximation of a profiler
that keeps one level of callers.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

from ..record import CreationSite, TimePart
from .sourcelines import calls_in_function, enclosing_function

__all__ = ["analyze", "CallGraphResult", "display_name", "SETTABLE_AREAS"]

Key = tuple  # (file, first line, function), as pstats keys its entries
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_PASSES = 40
_LABEL_PASSES = 6
_DRILL_SHARE = 0.5  # a user function holding this share of the loop's time is opened up
_MAX_PARTS = 12
_NEGLIGIBLE = 1e-7  # seconds
_LOOP, _DATA, _PROBE = "loop", "data", "probe"
_PHASES = ("data", "model", "backward", "optimizer", "h2d")
_CREATION = frozenset({"tensor", "as_tensor", "randn", "rand", "randint", "randperm", "zeros", "ones", "full",
                       "arange", "linspace", "eye", "empty", "from_numpy", "normal"})
_BUILTIN_METHOD = re.compile(r"<method '(\w+)' of '([\w.]+)' objects>")
_BUILTIN_FUNCTION = re.compile(r"<built-in method ([\w.]+)>")


@dataclass(frozen=True)
class CallGraphResult:
    phase_seconds: dict[str, float]
    loop_parts: tuple[TimePart, ...]
    data_parts: tuple[TimePart, ...]
    creations: tuple[CreationSite, ...]


def _path(key: Key) -> str:
    return key[0].replace("\\", "/")


@lru_cache(maxsize=None)
def _is_probe(key: Key) -> bool:
    return bool(key[0]) and os.path.abspath(key[0]).startswith(_OWN_DIR)


def _entry(key: Key) -> Optional[str]:
    """The step phase a call of this function starts (None: it runs in its caller's)."""
    path, func = _path(key), key[2]
    if path.endswith("torch/utils/data/dataloader.py") and func == "__next__":
        return "data"
    if path.endswith("torch/nn/modules/module.py") and func in ("_wrapped_call_impl", "_call_impl"):
        return "model"
    if (path.endswith(("torch/_tensor.py", "torch/autograd/__init__.py")) and func == "backward") \
            or "run_backward" in func:
        return "backward"
    if "/torch/optim/" in path and not path.endswith("lr_scheduler.py") and func != "zero_grad":
        return "optimizer"
    if _is_probe(key) and path.endswith("probe/instrument.py") and func == "copy":
        return "h2d"
    return None


def _resets_to_loop(key: Key, context: str) -> bool:
    """The loop's own work again, inside trainprobe's wrappers or an optimizer step: an optimizer's closure
    (the clock times it apart from the optimizer), zero_grad, an LR scheduler's step, GradScaler.scale."""
    path, func = _path(key), key[2]
    if _is_probe(key) and func == "timed_closure":
        return context in (_LOOP, _PROBE, "optimizer")
    return context == _PROBE and (func == "zero_grad" and not _is_probe(key)
                                  or path.endswith(("torch/optim/lr_scheduler.py", "torch/amp/grad_scaler.py")))


@lru_cache(maxsize=None)  # asked for every call of every function, on every pass
def _transform(key: Key, context: str) -> str:
    """The context a call of ``key`` runs its body in, when it is called in ``context``."""
    if _resets_to_loop(key, context):
        return _LOOP
    if context not in (_LOOP, _PROBE):
        return context  # the outermost phase wins
    phase = _entry(key)
    if phase is not None:
        return phase
    if context == _LOOP and _is_probe(key):
        return _PROBE
    return context


def display_name(key: Key) -> str:
    """"Tensor.item()", "torch.randn()", "len()", "set_postfix()"."""
    func = key[2]
    match = _BUILTIN_METHOD.match(func)
    if match:
        owner = match.group(2).rsplit(".", 1)[-1]
        return f"{'Tensor' if owner == 'TensorBase' else owner}.{match.group(1)}()"
    match = _BUILTIN_FUNCTION.match(func)
    if match:
        name = match.group(1)
        return f"{name.removeprefix('builtins.')}()"
    return f"{func}()"


def _package(key: Key) -> str:
    path = _path(key)
    if not key[0] or key[0] == "~":
        func = key[2]
        return "torch" if "torch" in func else "python"
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    return os.path.basename(path).removesuffix(".py")


def _module_file(key: Key) -> str:
    """"tqdm/std.py" for a library's function, "contextlib.py" for the standard library's."""
    path = _path(key)
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    return os.path.basename(path)


# A framework's files -> the area of its code they hold, and whether they run the loop (their calls are
# parts of their own). Matched in order, on paths with pytorch_lightning/ read as lightning/pytorch/.
_AREAS: tuple[tuple[str, str, bool], ...] = (
    ("lightning/pytorch/callbacks/progress/", "progress bar", False),
    ("lightning/pytorch/trainer/connectors/logger_connector/", "logging (self.log)", False),
    ("lightning/pytorch/loggers/", "loggers", False),
    ("lightning/pytorch/callbacks/", "callbacks", False),
    ("lightning/pytorch/loops/", "the fit loop", True),
    ("lightning/pytorch/trainer/call.py", "hooks", True),
    ("lightning/pytorch/trainer/", "the trainer", True),
    ("lightning/pytorch/strategies/", "the strategy", True),
    ("lightning/pytorch/core/optimizer.py", "the optimizer wrapper", True),
    ("lightning/pytorch/plugins/", "the precision plugin", True),
    ("lightning/pytorch/", "other Lightning code", False),
    ("lightning/fabric/", "Fabric", False),
    ("lightning_utilities/", "other Lightning code", False),
    ("transformers/trainer_callback.py", "callbacks (progress bar, logging)", False),
    ("transformers/utils/notebook.py", "progress bar", False),
    ("transformers/trainer.py", "the training loop", True),
    ("transformers/trainer_pt_utils.py", "trainer utilities", False),
    ("transformers/integrations/", "logging integrations", False),
    ("transformers/", "other Transformers code", False),
    ("accelerate/", "accelerate", False),
)
# Of those areas, the ones a setting of the framework shrinks (Trainer(log_every_n_steps=...),
# enable_progress_bar, TrainingArguments(logging_steps=..., disable_tqdm=...), report_to): what advice about the
# framework's per-step work can remove (facts/parts.py). The rest is its fixed cost per step.
SETTABLE_AREAS = frozenset({"progress bar", "logging (self.log)", "loggers", "callbacks",
                            "callbacks (progress bar, logging)", "logging integrations"})


def _helper(area: str) -> bool:
    """A framework's generic code (its utilities): it does the work of whichever part called it."""
    return area.startswith("other ")


_LOG_FUNCTIONS = frozenset({"log", "log_dict", "__to_tensor", "_LightningModule__to_tensor"})
_FRAMEWORK_PACKAGES = {"lightning": ("lightning/", "lightning_utilities/"),
                       "transformers": ("transformers/", "accelerate/"), "accelerate": ("accelerate/",)}


_LOOP_AREAS = {"lightning": "the fit loop", "transformers": "the training loop"}


class _Framework:
    def __init__(self, name: str) -> None:
        self.name = name
        self.roots = _FRAMEWORK_PACKAGES.get(name, ())
        # The code that runs the loop: the frames that were already running when the profile began
        # (their calls are the profile's roots) are the framework's, not the user's.
        self.loop_area = _LOOP_AREAS.get(name)

    def area(self, key: Key) -> Optional[tuple[str, bool]]:
        if not self.roots:
            return None
        path = _path(key).replace("pytorch_lightning/", "lightning/pytorch/")
        if "site-packages/" not in path:
            return None
        inside = path.split("site-packages/", 1)[1]
        if not inside.startswith(self.roots):
            return None
        if inside.startswith("lightning/pytorch/core/module.py") and key[2] in _LOG_FUNCTIONS:
            return "logging (self.log)", False
        for fragment, area, driver in _AREAS:
            if inside.startswith(fragment):
                return area, driver
        return f"other {self.name} code", False


class _Graph:
    """pstats' table with each function's calls from the loop's frames (its roots) made explicit."""

    def __init__(self, table: dict) -> None:
        self.table = table
        self.callers: dict[Key, dict[Key, tuple[float, float, int]]] = {}  # key -> caller -> (tt, ct, nc)
        self.root: dict[Key, tuple[float, float, int]] = {}
        callees: dict[Key, list[Key]] = defaultdict(list)
        for key, (_cc, nc, tt, ct, callers) in table.items():
            edges = {c: (float(v[2]), float(v[3]), int(v[1])) for c, v in callers.items() if c in table}
            self.callers[key] = edges
            for c in edges:
                callees[c].append(key)
            self.root[key] = (max(0.0, tt - sum(e[0] for e in edges.values())),
                              max(0.0, ct - sum(e[1] for e in edges.values())),
                              max(0, nc - sum(e[2] for e in edges.values())))
        self.order = self._order(callees)

    def _order(self, callees: dict[Key, list[Key]]) -> list[Key]:
        """Callers before callees, breadth first from the roots (cycles broken where met)."""
        seen, order = set(), []
        frontier = [k for k, r in self.root.items() if r[1] > 0 or not self.callers[k]]
        while frontier:
            nxt = []
            for key in frontier:
                if key in seen:
                    continue
                seen.add(key)
                order.append(key)
                nxt.extend(callees.get(key, ()))
            frontier = nxt
        order.extend(k for k in self.table if k not in seen)
        return order


def _mix(parts: list[tuple[float, dict]]) -> dict:
    """The weighted mean of distributions; flows whose distribution is not known yet are left out."""
    parts = [(w, dist) for w, dist in parts if dist]
    total = sum(w for w, _ in parts)
    out: dict = defaultdict(float)
    if total <= 0:
        return {}
    for w, dist in parts:
        for k, v in dist.items():
            out[k] += w / total * v
    return dict(out)


def _contexts(graph: _Graph) -> dict[Key, dict[str, float]]:
    """Each function's body: the share of its time in each context."""
    out: dict[Key, dict[str, float]] = {k: {_transform(k, _LOOP): 1.0} for k in graph.table}
    for _ in range(_PASSES):
        changed = False
        for key in graph.order:
            flows = [(graph.root[key][1] or (1e-12 if not graph.callers[key] else 0.0), {_LOOP: 1.0})]
            flows += [(e[1], out[c]) for c, e in graph.callers[key].items() if c != key]
            incoming = _mix(flows) or {_LOOP: 1.0}
            body: dict[str, float] = defaultdict(float)
            for context, share in incoming.items():
                body[_transform(key, context)] += share
            if any(abs(body.get(c, 0.0) - out[key].get(c, 0.0)) > 1e-6 for c in set(body) | set(out[key])):
                changed = True
            out[key] = dict(body)
        if not changed:
            break
    return out


_TORCH_DATA = ("torch/utils/data/dataloader.py", "torch/utils/data/_utils/fetch.py", "torch/utils/data/dataset.py")


class _Labels:
    """Charges each function's own time in one context to parts, as the module's docstring says.

    A label is ("user", key, caller) for a user's function and what runs under it, ("lib", key, caller)
    for a library's, ("own", key) for the own lines of a function whose calls are parts of their own
    (a driver), ("framework", area) for a framework's code, ("torchdata",) for the DataLoader's own."""

    def __init__(self, graph: _Graph, contexts: dict, context: str, is_user: Callable[[str], bool],
                 framework: _Framework, drivers: set) -> None:
        self.graph, self.contexts, self.context = graph, contexts, context
        # Making a batch is the dataset's and the libraries' it calls (a tokenizer), never the framework's.
        self.framework = framework if context == _LOOP else _Framework("")
        self.is_user, self.drivers = is_user, drivers

    def _driver(self, key: Key) -> bool:
        """Its calls are parts of their own: the framework's loop code, a user's function opened up, and
        when making a batch the user's dataset code and the DataLoader's own."""
        if key in self.drivers:
            return True
        if self.context == _DATA and (self.is_user(key[0]) or _path(key).endswith(_TORCH_DATA)):
            return True
        area = self.framework.area(key)
        return bool(area and area[1])

    def _own(self, key: Key) -> tuple:
        """The label of a driver's own time."""
        area = self.framework.area(key)
        if area is not None:
            return ("framework", area[0])
        if _path(key).endswith(_TORCH_DATA):
            return ("torchdata",)
        return ("own", key) if self.is_user(key[0]) else ("lib", key, None)

    def _new(self, key: Key, caller: Optional[Key]) -> tuple:
        area = self.framework.area(key)
        if area is not None:
            return ("framework", area[0])
        if _path(key).endswith(_TORCH_DATA):
            return ("torchdata",)
        user_caller = caller if caller is not None and self.is_user(caller[0]) else None
        return ("user" if self.is_user(key[0]) else "lib", key, user_caller)

    def _via(self, key: Key, caller: Optional[Key], caller_labels: dict) -> dict:
        """The labels of one call's time: a part of its own when a driver made it (or the context begins
        here), the framework's when the user's hook calls it (self.log), else its caller's."""
        if caller is None or self._driver(caller):
            caller_area = self.framework.area(caller) if caller is not None else None
            area = self.framework.area(key)
            if caller_area is not None and not self.is_user(key[0]) and (area is None or _helper(area[0])) \
                    and not _path(key).endswith(_TORCH_DATA):
                # A library or a framework's generic helper (apply_to_collection) called by the framework's
                # loop code: that code's own work.
                return {("framework", caller_area[0]): 1.0}
            return {self._new(key, caller): 1.0}
        if self.framework.area(key) is not None and self.is_user(caller[0]):
            return {self._new(key, caller): 1.0}
        return caller_labels

    def _root(self, key: Key) -> dict:
        """The labels of a call made by a frame that ran before the profile began: the loop's own frame,
        which is the framework's when one runs the loop."""
        loop_area = self.framework.loop_area
        if self.context == _LOOP and loop_area and not self.is_user(key[0]) and self.framework.area(key) is None:
            return {("framework", loop_area): 1.0}
        return self._via(key, None, {})

    def _share(self, caller: Key, key: Key) -> float:
        """The share of caller -> key calls that run in this context (once key's own phase applies)."""
        return sum(s for c, s in self.contexts[caller].items() if _transform(key, c) == self.context)

    def run(self) -> dict[tuple, list[float]]:
        """label -> [seconds, op seconds, calls] of own time charged to it, in this context."""
        graph, ctx = self.graph, self.context
        labels: dict[Key, dict] = {}
        for _ in range(_LABEL_PASSES):  # more passes settle calls met before their callers (cycles)
            before = {k: dict(v) for k, v in labels.items()}
            for key in graph.order:
                flows = []
                root = graph.root[key]
                if (root[1] > 0 or not graph.callers[key]) and _transform(key, _LOOP) == ctx:
                    flows.append((max(root[1], 1e-12), self._root(key)))
                for caller, edge in graph.callers[key].items():
                    share = self._share(caller, key)
                    if share <= 0 or caller == key:
                        continue  # a recursive call has its own labels
                    entering = self.contexts[caller].get(ctx, 0.0) < share  # the context begins at this call
                    flows.append((max(edge[1], 1e-12) * share,
                                  self._via(key, None if entering else caller, labels.get(caller, {}))))
                labels[key] = _mix(flows)
            if labels == before:
                break
        return self._charge(labels)

    def _charge(self, labels: dict[Key, dict]) -> dict[tuple, list[float]]:
        graph, out = self.graph, defaultdict(lambda: [0.0, 0.0, 0])
        for key in graph.order:
            if _is_probe(key):
                continue  # trainprobe's own time: the clock leaves it out of the step
            seconds = graph.root[key][0] if _transform(key, _LOOP) == self.context else 0.0
            seconds += sum(edge[0] * self._share(caller, key) for caller, edge in graph.callers[key].items())
            if seconds <= 0:
                continue
            charged = {self._own(key): 1.0} if self._driver(key) else labels.get(key) or {self._new(key, None): 1.0}
            is_op = key[0] in ("", "~") and "torch" in key[2]
            for label, share in charged.items():
                row = out[label]
                row[0] += seconds * share
                if is_op:
                    row[1] += seconds * share
        for label, row in out.items():
            if label[0] in ("user", "lib", "own"):
                table = graph.table.get(label[1])
                row[2] = int(table[1]) if table else 0
        return out


def _parts(charged: dict[tuple, list[float]], is_user: Callable[[str], bool], framework: str,
           categorize: Optional[Callable[[str, str], str]] = None) -> list[TimePart]:
    parts = []
    for label, (seconds, ops, calls) in charged.items():
        if seconds <= _NEGLIGIBLE:
            continue  # a share of a share of a microsecond: rounding, not a part
        if label[0] == "framework":
            parts.append(TimePart(label=f"{label[1]} ({framework})", owner="framework", area=label[1],
                                  seconds=seconds, op_seconds=ops))
            continue
        if label[0] == "torchdata":
            parts.append(TimePart(label="the DataLoader's own code (torch)", owner="torch", area="torch",
                                  seconds=seconds, op_seconds=ops))
            continue
        key = label[1]
        caller = label[2] if len(label) > 2 else None
        name = display_name(key)
        if label[0] == "own":
            text, owner = f"own lines of {name}", "user"
        elif label[0] == "user":
            text, owner = name, "user"
        else:
            package = _package(key)
            text = name if key[0] in ("", "~") else f"{name} ({_module_file(key)})"
            owner = "torch" if package == "torch" else ("python" if package == "python" else "library")
        parts.append(TimePart(
            label=text, function=key[2], file=key[0] if key[0] != "~" else "", line=int(key[1]),
            caller=f"{caller[2]}() {caller[0]}:{caller[1]}" if caller is not None else "", owner=owner,
            area=_kind(key, caller, categorize) if categorize else _package(key), seconds=seconds, op_seconds=ops,
            calls=calls))
    parts.sort(key=lambda p: p.seconds, reverse=True)
    return parts


def _kind(key: Key, caller: Optional[Key], categorize: Callable[[str, str], str]) -> str:
    """What kind of work a part is; generic work (a builtin, a torch op) is of its caller's kind: the
    crc32 calls of a tokenize() function are tokenizing."""
    kind = categorize(key[0], key[2])
    if kind in ("python", "torch") and caller is not None:
        called_by = categorize(caller[0], caller[2])
        if called_by not in ("python", "torch", "idle"):
            return called_by
    return kind


def _top(charged: dict[tuple, list[float]]) -> Optional[tuple]:
    return max(charged, key=lambda label: charged[label][0], default=None)


def _loop_parts(graph: _Graph, contexts: dict, is_user, framework: _Framework, residual: float
                ) -> list[TimePart]:
    """The loop's parts. A user function holding most of the loop's time is opened up into its own lines
    and its calls, so that a wrapper (a step() that does everything) is not named as the cause; when its
    own lines are still the largest part, the function itself is the cause and stays whole."""
    drivers: set = set()
    charged = _Labels(graph, contexts, _LOOP, is_user, framework, drivers).run()
    for _ in range(4):
        total = sum(row[0] for row in charged.values()) + residual
        top = _top(charged)
        if top is None or top[0] != "user" or charged[top][0] < _DRILL_SHARE * total:
            break
        opened = _Labels(graph, contexts, _LOOP, is_user, framework, drivers | {top[1]}).run()
        if _top(opened) == ("own", top[1]):
            break  # its own code is the time: name it whole
        drivers.add(top[1])
        charged = opened
    parts = _parts(charged, is_user, framework.name)
    if residual > 0:
        parts.append(TimePart(label="own lines of the loop", owner="loop", seconds=residual))
        parts.sort(key=lambda p: p.seconds, reverse=True)
    return parts[:_MAX_PARTS]


def _creations(graph: _Graph, contexts: dict, is_user, loop_at: Optional[str], framework: _Framework
               ) -> list[CreationSite]:
    """Tensors the user's own code made from Python (torch.tensor, torch.randn...), per call site."""
    out = []
    for key in graph.table:
        match = _BUILTIN_FUNCTION.match(key[2]) if key[0] in ("", "~") else None
        name = match.group(1) if match else ""
        if not name.startswith("torch.") or name.rsplit(".", 1)[-1] not in _CREATION:
            continue
        short = name.rsplit(".", 1)[-1]
        callers = [(c, e[2], e[1]) for c, e in graph.callers[key].items() if is_user(c[0])]
        root = graph.root[key]
        if root[2] and loop_at and not framework.roots:
            callers.append((None, root[2], root[1]))  # called by the loop's own frame (not profiled itself)
        for caller, calls, seconds in callers:
            if caller is None:
                path, line = loop_at.rsplit(":", 1)  # type: ignore[union-attr]
                found = enclosing_function(path, int(line))
                func, first = (found[1], found[0]) if found else ("", 0)
                context = _LOOP
            else:
                path, first, func = caller
                dist = contexts[caller]
                context = max(dist, key=dist.get) if dist else _LOOP
            sites = calls_in_function(path, first, func, {short}) if func else []
            on_cpu = [s for s in sites if not s[2]]
            at = f"{path}:{(on_cpu or sites)[0][0]}" if sites else f"{path}:{first}"
            out.append(CreationSite(function=f"torch.{short}", at=at, caller=func, calls=int(calls),
                                    context=context if context in (_LOOP, "model", _DATA) else _LOOP,
                                    on_device=(not on_cpu) if sites else None, seconds=float(seconds)))
    out.sort(key=lambda s: s.calls, reverse=True)
    return out[:_MAX_PARTS]


def analyze(table: dict, window: float, is_user: Callable[[str], bool], framework: str = "",
            loop_at: Optional[str] = None, categorize: Optional[Callable[[str, str], str]] = None
            ) -> CallGraphResult:
    """``table`` is ``pstats.Stats(...).stats``; ``window`` the profiled wall time (seconds)."""
    graph = _Graph(table)
    contexts = _contexts(graph)
    fw = _Framework(framework)
    phase: dict[str, float] = defaultdict(float)
    for key in graph.order:
        if _is_probe(key):
            phase[_PROBE] += float(table[key][2])
            continue
        phase[_transform(key, _LOOP)] += graph.root[key][0]
        for caller, edge in graph.callers[key].items():
            for context, share in contexts[caller].items():
                phase[_transform(key, context)] += edge[0] * share
    profiled = sum(v[2] for v in table.values())
    residual = max(0.0, window - profiled)  # the loop frame's own lines: it was running before the window
    phase[_LOOP] += residual
    loop = _loop_parts(graph, contexts, is_user, fw, residual)
    data = _parts(_Labels(graph, contexts, _DATA, is_user, fw, set()).run(), is_user, fw.name, categorize)
    return CallGraphResult(phase_seconds={k: v for k, v in phase.items() if v > 0}, loop_parts=tuple(loop),
                           data_parts=tuple(data[:_MAX_PARTS]),
                           creations=tuple(_creations(graph, contexts, is_user, loop_at, fw)))
