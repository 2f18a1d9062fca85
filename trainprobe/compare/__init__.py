"""``trainprobe compare``: did the change help? Runs -> one frozen :class:`Comparison` -> page, table, JSON.

``load_runs`` reads and diagnoses each RUN (the first is the baseline),
``compare_runs`` makes the comparison (speed-up with a bootstrap interval,
phases, findings, settings, loss), ``gate`` applies ``--fail-if-slower``, and
``write_page``/``comparison_text``/``json_view`` show it.

The names are imported when first used, so that the CLI, which registers
every command at start-up, does not load the comparison for other commands.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Comparison", "CandidateResult", "RunSummary", "compare_runs", "EXIT_SLOWER", "GateResult", "gate",
           "CompareError", "LoadedRun", "load_runs", "render_page", "write_page", "comparison_text", "json_view"]

_WHERE = {
    "Comparison": "compare", "CandidateResult": "compare", "RunSummary": "compare", "compare_runs": "compare",
    "EXIT_SLOWER": "fail_if_slower", "GateResult": "fail_if_slower", "gate": "fail_if_slower",
    "CompareError": "inputs", "LoadedRun": "inputs", "load_runs": "inputs",
    "render_page": "page", "write_page": "page", "comparison_text": "terminal", "json_view": "views",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
