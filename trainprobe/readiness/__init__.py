"""``trainprobe check``: is this machine ready for a deep-learning course?

Each checklist item is one module under :mod:`.items` (what an item is:
:mod:`.item`), listed in display order by the registry :mod:`.items`. The
stages use the registry only: :mod:`.collect` measures (machine facts, the
quick items, the benchmarks in child processes from :mod:`.bench`),
:mod:`.grade` grades against the items' defaults or an ``--expect`` file
(:mod:`.expect`), :mod:`.render` and :mod:`.summary` print.
"""

from .collect import build_result, collect_facts, run_check
from .expect import ExpectError, Expectations, load_expectations
from .grade import grade_all, verdict_of
from .results import CheckResult, Grade, MachineFacts, Measurement, TorchFacts
from .render import render_html, render_text
from .summary import load_results, render_summary_html, render_summary_text, summarize

__all__ = [
    "run_check", "collect_facts", "build_result", "grade_all", "verdict_of",
    "Expectations", "ExpectError", "load_expectations",
    "CheckResult", "Grade", "MachineFacts", "Measurement", "TorchFacts",
    "render_text", "render_html", "load_results", "summarize", "render_summary_text",
    "render_summary_html",
]
