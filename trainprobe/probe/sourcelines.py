"""Lines of the user's source, read with ``ast``: the statement a line belongs to, and calls by name.

A profile or a frame says which function and which line ran; these helpers turn that into the line a
user edits: the ``for`` statement of the loop an ``optimizer.step()`` sits in, the line that calls
``TrainingArguments(...)``, the ``torch.randn(...)`` call inside a function. Every helper returns
None when the file cannot be read or parsed (a notebook cell, a deleted file): a line is a courtesy,
never a reason to fail.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Iterable, Optional

__all__ = ["enclosing_loop", "enclosing_function", "first_call", "calls_in_function"]


@lru_cache(maxsize=64)
def _tree(path: str) -> Optional[ast.Module]:
    try:
        with open(path, encoding="utf-8") as fh:
            return ast.parse(fh.read(), filename=path)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


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
