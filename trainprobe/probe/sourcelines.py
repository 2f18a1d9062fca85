"""Lines of the user's source, read with ``ast``: the statement a line belongs to, and calls by name.

A profile or a frame says which function and which line ran; these helpers turn that into the line a
user edits: the ``for`` statement of the loop an ``optimizer.step()`` sits in, the line that calls
``TrainingArguments(...)``, the ``torch.randn(...)`` call inside a function. Every helper returns
None when the file cannot be read or parsed (a deleted file, a cell run live in a kernel): a line is a
courtesy, never a reason to fail. A notebook's cell (``<notebook>#cell-N``) is read from the notebook.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Callable, Iterable, Iterator, Optional

__all__ = ["parameter_lines", "calls_in", "calls_named", "enclosing_loop", "enclosing_function", "first_call",
           "calls_in_function", "training_after", "training_call", "passed_through", "call_in_class",
           "assigned_before", "literal_assigned", "call_passes_name", "argument_written",
           "argument_written_at"]


@lru_cache(maxsize=64)
def _source(path: str) -> Optional[str]:
    """The file's text; a notebook cell's (``<notebook>#cell-N``) from the notebook's code."""
    try:
        from ..notebook.read import cell_python

        cell = cell_python(path)
        if cell is not None:
            return cell
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, ValueError, UnicodeDecodeError):
        return None


@lru_cache(maxsize=64)
def _tree(path: str) -> Optional[ast.Module]:
    """The file's syntax tree (a notebook cell's too)."""
    source = _source(path)
    if source is None:
        return None
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError):
        return None


def parameter_lines(path: str, first_line: int) -> dict[str, int]:
    """Each parameter of the function whose code starts at ``first_line`` (its def, or its first decorator),
    with the line that declares it: where a default is set. Empty when the file cannot be read."""
    tree = _tree(path)
    if tree is None:
        return {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            starts = [node.lineno] + [d.lineno for d in node.decorator_list]
            if first_line in starts:
                params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                return {arg.arg: arg.lineno for arg in params}
    return {}


_MAX_FILES = 64  # the script's own files a search reads: a project's, not a vendored library's


def calls_in(paths: Iterable[str], word: str) -> Iterator[tuple[str, ast.Call]]:
    """Every call in the files of ``paths`` whose text holds ``word`` (the others are read, not parsed), file by
    file in the paths' order, with its file."""
    for path in sorted(set(paths))[:_MAX_FILES]:
        source = _source(path)
        tree = _tree(path) if source is not None and word in source else None
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                yield path, node


def calls_named(paths: Iterable[str], name: str,
                accept: Callable[[str, ast.Call], bool] = lambda _path, _node: True) -> Optional[str]:
    """The first call of a function or method named ``name`` in ``paths`` that ``accept(path, call)`` takes, as
    "path:line"; None when there is none."""
    found = min(((path, node.lineno) for path, node in calls_in(paths, name)
                 if _called_name(node) == name and accept(path, node)), default=None)
    return f"{found[0]}:{found[1]}" if found is not None else None


def cuda_autocast_call(paths: Iterable[str]) -> Optional[str]:
    """The script's first autocast made for CUDA, as "path:line": torch.cuda.amp.autocast(...),
    torch.autocast("cuda", ...) or device_type="cuda", or a bare autocast(...) in a file that imports it from
    torch.cuda.amp. On a run without CUDA torch turns it off with a warning, and the model runs in float32."""
    return calls_named(paths, "autocast", lambda path, node: _for_cuda(node, _source(path) or ""))


def _for_cuda(node: ast.Call, source: str) -> bool:
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "amp" \
            and isinstance(func.value.value, (ast.Attribute, ast.Name)) \
            and getattr(func.value.value, "attr", getattr(func.value.value, "id", None)) == "cuda":
        return True  # torch.cuda.amp.autocast(...), cuda.amp.autocast(...)
    device = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "device_type"), None)
    if isinstance(device, ast.Constant):
        return device.value == "cuda"
    return isinstance(func, ast.Name) and "from torch.cuda.amp import" in source


def _called_name(node: ast.Call) -> Optional[str]:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def enclosing_loop(path: str, line: int) -> Optional[int]:
    """The line of the innermost ``for``/``while`` statement whose body holds ``line``, in the same
    function; None when the line is in no loop (a framework's hook, say)."""
    tree = _tree(path)
    if tree is None:
        return None
    functions, loops = [], []
    for node in ast.walk(tree):
        start, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if start is None or end is None or not start <= line <= end:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            functions.append(start)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and start < line:
            loops.append(start)
    scope = max(functions, default=0)  # a loop around a function's definition is not its loop
    inside = [start for start in loops if start >= scope]
    return max(inside) if inside else None


def first_call(path: str, names: Iterable[str]) -> Optional[tuple[int, str]]:
    """The first call in the file to one of ``names`` (``Trainer(...)`` or ``pl.Trainer(...)``):
    (line, name)."""
    tree = _tree(path)
    if tree is None:
        return None
    wanted = set(names)
    found = [(node.lineno, name) for node in ast.walk(tree)
             if isinstance(node, ast.Call) and (name := _called_name(node)) in wanted]
    return min(found) if found else None


def calls_in_function(path: str, first_line: int, function: str, names: Iterable[str]
                      ) -> list[tuple[int, str, bool]]:
    """Calls to ``names`` inside the function ``function`` that starts at ``first_line`` (a profile's
    line: a decorated function's first decorator): (line, name, passes device=) for each."""
    tree = _tree(path)
    if tree is None:
        return []
    wanted = set(names)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != function:
            continue
        starts = [node.lineno] + [d.lineno for d in node.decorator_list]
        if first_line not in starts:
            continue
        return sorted((call.lineno, name, any(k.arg == "device" for k in call.keywords))
                      for call in ast.walk(node)
                      if isinstance(call, ast.Call) and (name := _called_name(call)) in wanted)
    return []


def enclosing_function(path: str, line: int) -> Optional[tuple[int, str]]:
    """(first line, name) of the innermost function whose body holds ``line``; None at module level."""
    tree = _tree(path)
    if tree is None:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= (node.end_lineno or 0):
            if best is None or node.lineno > best[0]:
                best = (node.lineno, node.name)
    return best


def training_after(path: str, line: int) -> Optional[tuple[int, str]]:
    """The first training call (``backward``, ``fit``, ``train(...)``, ``train_*``) among the statements
    that run once the loop holding ``line`` is over, in the same function (or the module's code): a second
    training phase that a stop at ``line`` kept from running; (line, name), or None.

    Statements after ``line`` inside that loop are the same phase (a GAN's generator step after its
    discriminator's), so only what follows the outermost loop around ``line`` counts; a line in no loop
    (a ``main()`` calling ``train(mlp)`` then ``train(cnn)``) is followed by the statements after it."""
    tree = _tree(path)
    if tree is None:
        return None
    chain = _statement_chain(tree.body, line)
    functions = [i for i, (_, _, stmt) in enumerate(chain) if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))]
    chain = chain[functions[-1] + 1:] if functions else chain  # the frame's own function's statements
    loops = [i for i, (_, _, stmt) in enumerate(chain) if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While))]
    if loops:
        chain = chain[:loops[0] + 1]  # from the outermost loop outward
    calls = [(call.lineno, name) for body, index, _ in reversed(chain) for stmt in body[index + 1:]
             for call in ast.walk(stmt) if isinstance(call, ast.Call) and (name := training_call(call))]
    return min(calls) if calls else None


def _statement_chain(body: list, line: int) -> list[tuple[list, int, ast.stmt]]:
    """The statements holding ``line``, outermost first: (the block, its index there, the statement)."""
    chain = []
    while True:
        index = next((i for i, stmt in enumerate(body) if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)),
                     None)
        if index is None:
            return chain
        stmt = body[index]
        chain.append((body, index, stmt))
        blocks = [getattr(stmt, field, None) for field in ("body", "orelse", "finalbody")]
        blocks += [handler.body for handler in getattr(stmt, "handlers", ())]
        blocks += [case.body for case in getattr(stmt, "cases", ())]
        body = next((b for b in blocks if isinstance(b, list) and b and b[0].lineno <= line
                     <= (b[-1].end_lineno or b[-1].lineno)), None)
        if body is None:
            return chain


def training_call(call: ast.Call) -> Optional[str]:
    name = _called_name(call)
    if name is None:
        return None
    if name == "backward" or (name.startswith("fit") and "transform" not in name):
        return name
    if name.startswith("train_") and not any(word in name for word in _NOT_TRAINING):
        return name  # train_model, train_epoch, train_one_epoch; not train_test_split, train_dataloader
    if name == "train":  # train(model, loader) or trainer.train(); model.train() only switches a mode
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if call.args or call.keywords or (isinstance(receiver, ast.Name) and "trainer" in receiver.id.lower()):
            return name
    return None


_NOT_TRAINING = ("split", "test", "loader", "data", "set", "transform", "val", "size", "path", "dir")


def passed_through(path: str, line: int, name: str, knob: str) -> Optional[tuple[str, str, bool]]:
    """A call to ``name`` at ``line`` that takes its settings from a parameter of the function around it: a
    library's trainer that builds ``Accelerator(**accelerate_kwargs)`` from its constructor's argument
    (muse-maskgit's VQGanVAETrainer), or ``Accelerator(mixed_precision=mixed_precision)``. Then the knob is the
    argument the user passes to that function: (the function's name as the user calls it, the class's name for an
    ``__init__``; the parameter; True when the parameter is a dict of keywords, False when it is ``knob``
    itself). None when the call spells its settings itself."""
    tree = _tree(path)
    if tree is None:
        return None
    call = next((node for node in ast.walk(tree) if isinstance(node, ast.Call) and node.lineno == line
                 and _called_name(node) == name), None)
    if call is None:
        return None
    # The innermost function around the call, with the node it sits in: an __init__ is called by its class's name.
    around = [(parent, node) for parent in ast.walk(tree) for node in ast.iter_child_nodes(parent)
              if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              and node.lineno <= line <= (node.end_lineno or 0)]
    if not around:
        return None
    parent, function = max(around, key=lambda pair: pair[1].lineno)
    owner = parent.name if function.name == "__init__" and isinstance(parent, ast.ClassDef) else function.name
    args = function.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - {"self", "cls"}
    for keyword in call.keywords:
        value = keyword.value
        if isinstance(value, ast.Name) and value.id in params:
            if keyword.arg is None:
                return owner, value.id, True
            if keyword.arg == knob:
                return owner, value.id, False
    return None


def call_in_class(path: str, line: int, names: Iterable[str]) -> Optional[tuple[int, str]]:
    """The first call to one of ``names`` inside the class whose body holds ``line`` (a library trainer's
    ``train`` method running: the ``Accelerator(...)`` its ``__init__`` makes): (line, name); None outside a class."""
    tree = _tree(path)
    if tree is None:
        return None
    wanted = set(names)
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
               and node.lineno <= line <= (node.end_lineno or 0)]
    if not classes:
        return None
    innermost = max(classes, key=lambda node: node.lineno)
    found = [(node.lineno, name) for node in ast.walk(innermost)
             if isinstance(node, ast.Call) and (name := _called_name(node)) in wanted]
    return min(found) if found else None


def assigned_before(path: str, line: int, name: str) -> Optional[int]:
    """The last line up to ``line`` that binds ``name`` to a call's result (``m = NeuralProphet()`` before
    ``m.fit(df)``): where an object was built whose constructor holds a setting; None when the file or cell
    has no such line (it was built in an earlier cell, or passed in)."""
    tree = _tree(path)
    if tree is None:
        return None
    found = [node.lineno for node in ast.walk(tree)
             if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno <= line
             and isinstance(node.value, ast.Call) and _binds(node, name)]
    return max(found) if found else None


def _binds(node: ast.stmt, name: str) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
    return any(isinstance(target, ast.Name) and target.id == name for target in targets)


def literal_assigned(path: str, name: str, value: int, up_to: Optional[int] = None) -> Optional[int]:
    """The last line (up to ``up_to``, else anywhere in the file or cell) that binds ``name`` to the integer
    literal ``value`` (``batch_size = 32``, ``BATCH_SIZE: int = 32``): where the script sets a knob it keeps
    in a plain variable. None without such a line (the value was computed, or read from a flag)."""
    tree = _tree(path)
    if tree is None:
        return None
    found = [node.lineno for node in ast.walk(tree)
             if isinstance(node, (ast.Assign, ast.AnnAssign)) and (up_to is None or node.lineno <= up_to)
             and isinstance(node.value, ast.Constant) and type(node.value.value) is int  # not a bool
             and node.value.value == value and _binds(node, name)]
    return max(found) if found else None


def call_passes_name(path: str, line: int, name: str) -> bool:
    """Whether a call on ``line`` (or spanning it) passes the variable ``name`` itself as an argument:
    ``DataLoader(train_set, batch_size=batch_size)``."""
    tree = _tree(path)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno):
            values = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(v, ast.Name) and v.id == name for v in values):
                return True
    return False


def argument_written(path: str, line: int, keyword: str, position: int, callee: str
                     ) -> Optional[tuple[int, Optional[int]]]:
    """Where a call spanning ``line`` writes its argument ``keyword``, or, in a call to ``callee`` itself, its
    ``position``-th positional one: that argument's line, and the integer it holds when it is written as a
    literal (``batch_size=32,`` two lines into a ``DataLoader(`` call), else None (``args.batch_size``). The
    line is the one a user edits to change that argument, as a linter names it; the innermost call that
    passes it wins. None when no call there passes it."""
    tree = _tree(path)
    if tree is None:
        return None
    spanning = [node for node in ast.walk(tree)
                if isinstance(node, ast.Call) and node.lineno <= line <= (node.end_lineno or node.lineno)]
    for node in sorted(spanning, key=lambda n: (n.end_lineno or n.lineno) - n.lineno):  # the innermost first
        value = next((k.value for k in node.keywords if k.arg == keyword), None)
        if value is None and _called_name(node) == callee and len(node.args) > position \
                and not any(isinstance(a, ast.Starred) for a in node.args[:position + 1]):
            value = node.args[position]
        if value is None:
            continue
        literal = value.value if isinstance(value, ast.Constant) and type(value.value) is int else None
        return value.lineno, literal
    return None


def argument_written_at(site: Optional[str], keyword: str, position: int, callee: str
                        ) -> Optional[tuple[str, Optional[int]]]:
    """``argument_written`` for a call at ``site`` ("file.py:line", as the probe notes a call's line): the
    argument's own line as "file.py:line", and its integer literal or None. None when ``site`` is not a file's
    line, or no call there passes the argument."""
    if not site or ":" not in site:
        return None
    path, line = site.rsplit(":", 1)
    if not line.isdigit():
        return None
    found = argument_written(path, int(line), keyword, position, callee)
    return (f"{path}:{found[0]}", found[1]) if found is not None else None
