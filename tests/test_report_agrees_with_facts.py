"""On every recorded run, the report, the terminal summary and the JSON summary show the facts' numbers.

The facts are the only place a share, a window or a step time is computed; the
outputs format them. A report that recomputed its own steady window once said
"waiting for data 98%" beside a finding whose fact was 32%.
"""

from __future__ import annotations

import html as htmllib
import re

import pytest

import recorded
from trainprobe import display
from trainprobe.facts.steps import PHASES
from trainprobe.report import json_summary, render_html, terminal_summary

# The third-party runs (real/), the framework runs (frameworks/) and the GPU campaign's (gpu/) are diagnosed
# in the slow set: the quick loop stays under a minute.
RUNS = [pytest.param(p, id=p.stem.split(".")[0],
                     marks=(pytest.mark.slow,) if {"real", "frameworks", "gpu"} & set(p.parent.parts) else ())
        for p in recorded.ALL_RUNS]


@pytest.fixture(scope="module", params=RUNS)
def diagnosed(request):
    return recorded.diagnosed(request.param)


def _section(html: str, section_id: str) -> str:
    m = re.search(rf'<section[^>]*id="{section_id}"[^>]*>(.*?)</section>', html, re.S)
    assert m, section_id
    return m.group(1)


def test_there_are_recorded_runs():
    assert len(RUNS) >= 20


def test_terminal_numbers_are_the_facts(diagnosed):
    record, diagnosis = diagnosed
    facts = diagnosis.fact_values()
    text = terminal_summary(record, diagnosis, None, color=False)
    if not facts["steady_steps"]:
        assert "step time" not in text
        return
    assert f"step time {display.seconds(facts['step_time'])}" in text
    assert f"steps/s {display.number(facts['steps_per_second'])}" in text
    if facts["samples_per_second"] is not None:
        assert f"samples/s {display.number(facts['samples_per_second'])}" in text
    if facts["data_wait_share"] is not None:
        assert f"waiting for data {display.share(facts['data_wait_share'])}" in text
    shown = re.findall(r"waiting for data (\d+%)", text)
    assert set(shown) <= {display.share(facts["data_wait_share"])}


def test_terminal_lists_the_findings_in_the_engines_order_with_their_gains(diagnosed):
    record, diagnosis = diagnosed
    text = terminal_summary(record, diagnosis, None, color=False, top=len(diagnosis.findings))
    titles = [f.title for f in diagnosis.findings]
    assert [t for t in titles if t in text] == titles
    assert [text.index(t) for t in titles] == sorted(text.index(t) for t in titles)
    for f in diagnosis.findings:
        if f.gain.text:
            assert f.gain.text in text


def test_html_verdict_and_breakdown_are_the_facts(diagnosed):
    record, diagnosis = diagnosed
    facts = diagnosis.fact_values()
    page = render_html(record, diagnosis)
    if not facts["steady_steps"]:
        assert "No training step was measured" in _section(page, "breakdown")
        return
    verdict = _section(page, "verdict")
    assert f"<dt>step time</dt><dd>{display.seconds(facts['step_time'])}</dd>" in verdict
    if facts["data_wait_share"] is not None:
        assert f"<dt>waiting for data</dt><dd>{display.share(facts['data_wait_share'])}</dd>" in verdict
    rows = re.findall(r'<tr><td><i class="swatch"[^>]*></i>([^<]*)(?:<div class="muted small">[^<]*</div>)?</td>'
                      r'<td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>',
                      _section(page, "breakdown"))
    shown = {htmllib.unescape(label): (warm, steady, share) for label, warm, steady, share in rows}
    from trainprobe.report.sections import PHASES as LABELS
    for phase, label, _color in LABELS:
        if label not in shown:
            assert phase == "debug" and not facts["debug_per_step"]
            continue
        warm, steady, share = shown[label]
        assert steady == display.seconds(facts[f"{phase}_per_step"]), phase
        assert share == display.share(facts[f"{phase}_share"]), phase
        assert warm == display.seconds(facts[f"warmup_{phase}_per_step"]), phase
    assert {p for p, _, _ in LABELS} == set(PHASES)


def test_html_findings_keep_the_engines_order(diagnosed):
    record, diagnosis = diagnosed
    findings = _section(render_html(record, diagnosis), "findings")
    ids = re.findall(r'<article class="finding[^"]*" id="finding-([^"]+)"', findings)
    assert ids == [f.id for f in diagnosis.findings]


def test_json_summary_is_the_facts(diagnosed):
    record, diagnosis = diagnosed
    facts = diagnosis.fact_values()
    data = json_summary(record, diagnosis, None)
    assert data["verdict"]["step_time_s"] == facts["step_time"]
    assert data["verdict"]["steps_per_second"] == facts["steps_per_second"]
    assert data["verdict"]["samples_per_second"] == facts["samples_per_second"]
    assert [f["id"] for f in data["findings"]] == [f.id for f in diagnosis.findings]


def test_evidence_values_are_the_facts_formatted(diagnosed):
    _record, diagnosis = diagnosed
    facts = diagnosis.fact_values()
    from trainprobe.facts import FACT_CATALOG
    for finding in diagnosis.findings:
        for e in finding.evidence:
            assert e.value == display.by_unit(facts[e.fact], FACT_CATALOG[e.fact].unit), (finding.id, e.fact)
