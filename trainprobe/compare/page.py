"""The comparison's HTML page: one self-contained file (templates/compare.html.j2), the comparison
embedded as JSON for whoever wants the numbers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

from ..display import jinja_environment
from ..jsonio import write_text_atomic
from ..report.html import json_for_script
from .bootstrap import CONFIDENCE
from .compare import SLOW_IN_CLASS, Comparison
from .fail_if_slower import GateResult
from .losses import LOSS_TOLERANCE
from .views import finding_rows, headline, loss_text, phase_rows, run_row, setting_rows, slow_reason, throughput_unit

__all__ = ["page_context", "render_page", "write_page"]


def page_context(c: Comparison, gate_result: Optional[GateResult] = None) -> dict[str, Any]:
    order = [c.run(label) for label in c.ranking] if c.class_view else list(c.runs)
    return {
        "class_view": c.class_view,
        "baseline": c.baseline.label,
        "unit": throughput_unit(c),
        "rows": [run_row(c, r) for r in order],
        "candidates": [{
            "label": cand.label, "headline": headline(c, cand), "conclusion": cand.conclusion,
            "phases": phase_rows(cand), "settings": setting_rows(cand), "findings": finding_rows(c, cand),
            "flags": list(cand.flags), "loss": loss_text(c, cand), "learns_differently": cand.learns_differently,
        } for cand in c.candidates],
        "slow": [{"label": r.label, "headline": slow_reason(c, r)} for r in order if r.slow_in_class],
        "notes": list(c.notes),
        "gate": gate_result.message if gate_result is not None else None,
        "gate_failed": bool(gate_result and gate_result.failed),
        "method": (f"The speed-up is the baseline's mean time per {'sample' if c.basis == 'samples' else 'step'} "
                   f"over the candidate's, on each run's steady steps (the steps its own report describes). "
                   f"Its {CONFIDENCE:.0%} interval comes from {c.resamples:,} bootstrap resamples of each run's "
                   f"steady steps (fixed seed {c.seed}): a result is faster or slower only when the interval "
                   f"excludes 1, and inconclusive otherwise. A class view calls a run slow at {SLOW_IN_CLASS:g}× "
                   f"the median run's time or more; two runs learn differently when their late-window loss is "
                   f"more than {LOSS_TOLERANCE:.0%} apart."),
        "raw_json": json_for_script(c.to_dict()),
    }


def render_page(c: Comparison, gate_result: Optional[GateResult] = None) -> str:
    return jinja_environment().get_template("compare.html.j2").render(**page_context(c, gate_result))


def write_page(c: Comparison, path: str | os.PathLike, gate_result: Optional[GateResult] = None) -> Path:
    path = Path(path)
    write_text_atomic(path, render_page(c, gate_result))
    return path
