"""The layers hold: no import circle runs through api, probe, job or report, and no package reaches
into another's private names.

The graph is built from the source with ``ast`` (every import, at the top of a module or inside a
function: an import placed in a function still ties the two modules together), module by module.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "trainprobe"
GUARDED = ("trainprobe.api", "trainprobe.probe", "trainprobe.job", "trainprobe.report")


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _package(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def _imports(name: str, path: Path, modules: dict[str, Path]):
    """(imported module, names imported from it) for every import of trainprobe in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("trainprobe"):
                    yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package(name, path).split(".")
                package = package[:len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            if not base.startswith("trainprobe"):
                continue
            plain = [a.name for a in node.names if f"{base}.{a.name}" not in modules]
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:  # a submodule: `from . import job`
                    yield f"{base}.{alias.name}", ()
            if plain:  # names defined in the module itself (not `from .. import display`, a submodule)
                yield base, tuple(plain)


@functools.cache
def _graph():
    modules = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    private = []
    for name, path in modules.items():
        for target, names in _imports(name, path, modules):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name:
                edges[name].add(target)
                top = lambda m: ".".join(m.split(".")[:2])  # noqa: E731  # trainprobe.<package>
                for n in names:
                    if n.startswith("_") and not n.startswith("__") and top(target) != top(name):
                        private.append(f"{name} imports {target}.{n}")
    return modules, edges, private


def _cycles(modules, edges) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(modules):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_runs_through_api_probe_job_or_report():
    modules, edges, _ = _graph()
    guarded = [c for c in _cycles(modules, edges) if any(m.startswith(GUARDED) for m in c)]
    assert guarded == []


def test_no_private_name_is_imported_across_packages():
    _, _, private = _graph()
    assert private == []


def test_the_graph_sees_imports_placed_inside_functions():
    """The checks above would pass on a graph that missed the imports hidden in functions."""
    modules, edges, _ = _graph()
    assert "trainprobe.job.trainers" in edges["trainprobe.api.run"]  # imported inside _trainers()
    assert "trainprobe.probe.ranks" in edges["trainprobe.probe.child"]  # imported inside main()
