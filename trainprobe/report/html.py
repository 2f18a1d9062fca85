"""The HTML report: one self-contained file that opens offline.

Everything the page needs is inside it: styles, the SVG charts (see
charts.py for why SVG), a few lines of JavaScript for the copy and download
buttons, and the run record itself as JSON. The page's Content-Security-Policy
(templates/_base.html.j2) forbids every request to another host, so a report
mailed as an attachment or posted on a forum cannot phone home.

Jinja2 autoescaping is on for every template: any string from the user's run
(script path, arguments, exception text, op and function names) is shown as
text, never as markup.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

from markupsafe import Markup

from ..findings import Diagnosis
from ..record import RunRecord
from ..jsonio import to_dict, write_text_atomic
from .. import display
from .compute import compute_section, memory_section
from .downsample import thin_indices
from .job import job_section
from .details import (device_section, environment_section, hotspots_section, ops_section,
                      settings_section)
from .sections import breakdown_section, findings_section, header_section, outcome_section, verdict_section
from .timelines import hero_chart, timelines_section

__all__ = ["render_html", "write_html", "json_for_script", "embedded_record", "RAW_RECORD_MAX_BYTES", "RAW_SAMPLES_MAX",
           "RAW_STEPS_MAX"]

# The raw record is embedded whole while its JSON stays under this size. Past
# it (long runs: an hour at 10 Hz is ~30 MB of samples and ~5 MB of steps),
# the embedded copy keeps at most RAW_SAMPLES_MAX rows per time series and
# RAW_STEPS_MAX steps, with floats cut to RAW_DIGITS significant digits, so
# the report stays a few MB; the full record stays in run.json.
RAW_RECORD_MAX_BYTES = 1_500_000
RAW_SAMPLES_MAX = 1_500
RAW_STEPS_MAX = 2_000
RAW_DIGITS = 6


def json_for_script(data: Any) -> Markup:
    """JSON that is safe inside <script type="application/json">.

    ``<`` is written as ``\\u003c`` so no string in the record (an exception
    text holding ``</script>``) can close the tag; ``>``, ``&`` and the two
    JavaScript line separators are escaped too. JSON.parse reads it unchanged.
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, default=str, separators=(",", ":"))
    for raw, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                     ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, esc)
    return Markup(text)


def _thin_series(series: dict[str, Any], max_rows: int) -> tuple[dict[str, Any], int]:
    """Keep ``max_rows`` evenly spaced rows of a column-wise series (all columns aligned)."""
    n = len(series.get("t") or ())
    if n <= max_rows:
        return series, n
    keep = thin_indices(n, max_rows)
    out = dict(series)
    for key, col in series.items():
        if isinstance(col, list) and len(col) == n:
            out[key] = [col[i] for i in keep]
    return out, n


def _thin_steps(steps: list[dict[str, Any]], max_steps: int) -> list[dict[str, Any]]:
    """Every step outside the steady window, and evenly spaced steady ones, up to ``max_steps``."""
    if len(steps) <= max_steps:
        return steps
    special = [i for i, s in enumerate(steps) if s.get("phase") not in ("steady", "after")]
    rest = [i for i, s in enumerate(steps) if s.get("phase") in ("steady", "after")]
    room = max(2, max_steps - len(special))
    keep = set(special) | {rest[i] for i in thin_indices(len(rest), room)}
    return [steps[i] for i in sorted(keep)]


def _round_floats(data: Any, digits: int) -> Any:
    if isinstance(data, float):
        return float(f"{data:.{digits}g}")
    if isinstance(data, list):
        return [_round_floats(v, digits) for v in data]
    if isinstance(data, dict):
        return {k: _round_floats(v, digits) for k, v in data.items()}
    return data


def embedded_record(record: RunRecord, record_path: Optional[Path] = None) -> tuple[dict[str, Any], str]:
    """The record as embedded in the report, and a sentence saying whether it was thinned."""
    data = to_dict(record)
    size = len(json.dumps(data, default=str, separators=(",", ":")))
    if size <= RAW_RECORD_MAX_BYTES:
        return data, f"The complete run record ({display.nbytes(size)} of JSON)."
    samples = data["samples"]
    samples["host"], n_host = _thin_series(samples["host"], RAW_SAMPLES_MAX)
    counts = [n_host]
    for key in ("processes", "gpus"):
        thinned = [_thin_series(s, RAW_SAMPLES_MAX) for s in samples[key]]
        samples[key] = [s for s, _ in thinned]
        counts += [n for _, n in thinned]
    n_steps = len(data["steps"])
    data["steps"] = _thin_steps(data["steps"], RAW_STEPS_MAX)
    data = _round_floats(data, RAW_DIGITS)
    what = (f"time series thinned to at most {RAW_SAMPLES_MAX:,} rows each (from up to {max(counts):,}), "
            f"{len(data['steps']):,} of its {n_steps:,} steps kept and numbers cut to {RAW_DIGITS} significant digits")
    data["report_note"] = f"an abridged copy: {what}, to keep the report small"
    where = f" The full record is {record_path}." if record_path else " The full record is the run.json that trainprobe wrote."
    return data, f"An abridged copy of the run record ({display.nbytes(size)} of JSON in full): {what}, to keep this file small.{where}"


def report_context(record: RunRecord, diagnosis: Diagnosis,
                   record_path: Optional[Path] = None) -> dict[str, Any]:
    """Everything the template shows, already formatted."""
    raw, raw_note = embedded_record(record, record_path)
    return {
        "header": header_section(record),
        "outcome": outcome_section(record),
        "verdict": verdict_section(diagnosis),
        "hero": hero_chart(record, diagnosis),
        "breakdown": breakdown_section(diagnosis),
        "compute": compute_section(record, diagnosis),
        "memory": memory_section(record, diagnosis),
        "findings": findings_section(diagnosis),
        "timelines": timelines_section(record),
        "ops": ops_section(record),
        "device": device_section(diagnosis),
        "ranks": job_section(diagnosis),
        "hotspots": hotspots_section(record),
        "environment": environment_section(record),
        "settings": settings_section(record),
        "notes": list(record.notes),
        "rule_errors": list(diagnosis.rule_errors),
        "not_judged": list(diagnosis.not_judged),
        "rules_evaluated": diagnosis.rules_evaluated,
        "raw_json": json_for_script(raw),
        "raw_note": raw_note,
        "raw_filename": (record_path.name if record_path else "run.json"),
    }


def render_html(record: RunRecord, diagnosis: Diagnosis, record_path: Optional[Path] = None) -> str:
    """The report as one HTML string."""
    env = display.jinja_environment()
    return env.get_template("report.html.j2").render(**report_context(record, diagnosis, record_path))


def write_html(record: RunRecord, diagnosis: Diagnosis, path: str | os.PathLike,
               record_path: Optional[Path] = None) -> Path:
    """Render and write the report atomically (a reader never sees half a file); returns its path."""
    path = Path(path)
    write_text_atomic(path, render_html(record, diagnosis, record_path))
    return path
