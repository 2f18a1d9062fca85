"""The HTML report, section by section, from run records built in code (fake hardware) and recorded runs."""

from __future__ import annotations

import html as htmllib
import json
import re

import pytest

import recorded
import report_fakes as F
from trainprobe import display, vocabulary
from trainprobe.findings import Diagnosis, Verdict
from trainprobe.record import RunRecord
from trainprobe.report import MAX_POINTS, render_html, write_html

RUNS = recorded.GALLERY_RUNS


def _render(case: str) -> str:
    record, diagnosis = F.CASES[case]
    return render_html(record(), diagnosis())


def _section(html: str, section_id: str) -> str:
    m = re.search(rf'<section[^>]*id="{section_id}"[^>]*>(.*?)</section>', html, re.S)
    assert m, f"section {section_id} missing"
    return m.group(1)


def _embedded(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="run-record">(.*?)</script>', html, re.S)
    assert m
    return json.loads(m.group(1))


def test_sections_come_most_important_first():
    html = _render("input_bound")
    order = ["verdict", "findings", "breakdown", "timelines", "ops", "hotspots", "settings", "environment",
             "outcome", "raw"]
    positions = [html.index(f'id="{s}"') for s in order]
    assert positions == sorted(positions)


def test_verdict_shows_headline_step_time_and_throughput():
    verdict = _section(_render("input_bound"), "verdict")
    assert "Input-bound" in verdict
    assert "The GPU waits for data: 70% of each training step" in verdict
    facts = F.input_bound_diagnosis().fact_values()
    for name, show in (("step_time", display.seconds), ("steps_per_second", display.number),
                       ("samples_per_second", display.number), ("data_wait_share", display.share)):
        assert f"<dd>{show(facts[name])}</dd>" in verdict, name
    assert "waiting for data" in verdict
    # the starving device is on the first screen: the GPU chart and its summary sit in the verdict card
    assert '<svg class="chart"' in verdict
    assert "sat idle" in verdict


def test_findings_are_ranked_by_gain_with_evidence_snippet_and_docs():
    findings = _section(_render("input_bound"), "findings")
    first, second = findings.index("Too few DataLoader workers"), findings.index("pin_memory is off")
    assert first < second  # the engine listed pin_memory first; 0.16 s/step beats 0.004 s/step
    assert "&gt; 20%" in findings  # threshold beside the measured value
    assert "about 2.9× faster steps" in findings
    assert "num_workers=8, persistent_workers=True" in findings
    assert "data-copy" in findings
    assert 'href="https://pytorch.org/docs/stable/data.html#multi-process-data-loading"' in findings
    assert 'href="javascript:' not in findings  # only http(s) references become links
    assert "dataloader-too-few-workers" in findings


def test_verification_is_shown_when_measured():
    findings = _section(_render("compute_bound"), "findings")
    assert "What-if (measured)" in findings and "1.7×" in findings


def test_breakdown_compares_warmup_and_steady():
    section = _section(_render("input_bound"), "breakdown")
    assert "over 40 steady steps" in section and "Warm-up: 5 steps" in section
    for phase in ("data_wait", "h2d", "forward", "backward", "optimizer", "other"):  # as the vocabulary names them
        assert vocabulary.PHASE[phase].label in htmllib.unescape(section)
    assert "176 ms" in section  # steady mean data wait of the fake steps


def test_on_a_gpu_the_hosts_copy_time_that_waited_for_the_gpu_is_called_a_wait():
    """GPT-2 small in fp32 on the H200: the host spent 87% of the step in a blocking .to(), which returns only
    when the GPU has run the queued step, while the GPU itself copied for 0.01%. The host's bar said "copy to
    device 87%" right above the cause bar's "compute 98%"."""
    record, diagnosis = recorded.diagnosed(recorded.RUNS_DIR / "gpu" / "near_full_card.h200.run.json.gz")
    page = htmllib.unescape(render_html(record, diagnosis))
    verdict = _section(page, "verdict")
    assert "Where a steady step's time goes on the host" in verdict
    assert "waiting for the GPU in copies to it 87%" in verdict and "copy to device 87%" not in verdict
    assert "the GPU itself copied for 0% of the step" in _section(page, "breakdown")
    # A CPU run keeps the plain words.
    cpu = htmllib.unescape(render_html(*recorded.diagnosed(RUNS[0])))
    assert "Where a steady step's time goes <" in cpu.replace("goes <span", "goes <") and "waiting for the GPU" not in cpu


def test_timelines_have_gpu_cpu_disk_charts_with_step_boundaries():
    section = _section(_render("input_bound"), "timelines")
    for title in ("Step time", "GPU utilization", "GPU power vs limit", "GPU memory", "CPU by process", "Disk read"):
        assert title in section
    assert section.count('class="step-tick"') >= 6
    assert "worker 0 (pid 4300)" in section and "main process (pid 4242)" in section
    assert "GPU 0 limit 400 W" in section and "GPU 0 total 40.0 GiB" in section
    assert "steady (measured)" in section


def test_no_gpu_run_says_why_instead_of_empty_charts():
    html = _render("no_gpu")
    assert "GPU metrics unavailable: NVML library not found (no NVIDIA driver)" in html
    timelines = _section(html, "timelines")
    assert "GPU utilization" not in timelines and "GPU power" not in timelines
    assert "CPU by process" in timelines
    verdict = _section(html, "verdict")
    assert "GPU busy" not in verdict
    assert "No GPU: the training process kept" in verdict
    assert "cProfile was turned off" in _section(html, "hotspots")


def test_crash_before_first_step_puts_outcome_and_traceback_up_front():
    html = _render("crashed")
    assert html.index('id="outcome"') < html.index('id="findings"')
    assert "The run failed (exit code 1)" in html
    outcome = _section(html, "outcome")
    assert "Traceback (most recent call last)" in outcome
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in outcome
    assert "No training step was measured" in _section(html, "breakdown")
    assert "the run ended before the profiler window" in _section(html, "ops")


def test_ops_and_hotspots_tables():
    html = _render("input_bound")
    ops = _section(html, "ops")
    assert "aten::convolution" in ops and "sm80_xmma_fprop_implicit_gemm" in ops
    assert "By CPU time" in ops and "By CUDA time" in ops
    hot = _section(html, "hotspots")
    assert "train.py:41" in hot  # made relative to the run's folder
    assert "PIL/ImageFile.py:250" in hot  # site-packages prefix dropped
    assert "decode 55%" in hot


def test_environment_and_settings():
    html = _render("input_bound")
    env = _section(html, "environment")
    assert "FAKE GPU A100-SXM4-40GB" in env and "Pillow 10.4.0, libjpeg-turbo" in env
    assert "16 usable by this run" in env and "gen 4 ×16" in env
    settings = _section(html, "settings")
    assert "torchvision.datasets.folder.ImageFolder" in settings and "OMP_NUM_THREADS" in settings
    assert "torch.optim.sgd.SGD" in settings and "Mixed precision (AMP)" in settings


def test_user_strings_are_escaped():
    html = render_html(F.xss_record(), F.xss_diagnosis())
    assert "<img" not in html
    assert "<b>bold</b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;.py" in html
    assert html.count("<script") == 2  # the record and the buttons' script, nothing injected
    data = _embedded(html)  # "</script>" inside the record cannot close its tag
    assert data["outcome"]["exception_message"].endswith("</script><script>alert(1)</script>")
    assert "\\u003c/script" in html


def test_embedded_record_round_trips():
    record = F.input_bound_record()
    data = _embedded(render_html(record, F.input_bound_diagnosis()))
    assert RunRecord.from_dict(data) == record
    assert "report_note" not in data


def test_page_makes_no_request_to_another_host():
    html = _render("input_bound")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r'\s(src|srcset|action|poster|data)\s*=\s*"(https?:)?//', html)
    assert "url(http" not in html and "@import" not in html
    # the only outbound URLs are reference links a person clicks
    for href in re.findall(r'href="(https?://[^"]+)"', html):
        assert href.startswith("https://pytorch.org/")


def test_empty_record_renders():
    html = render_html(RunRecord(), Diagnosis(verdict=Verdict(category="unknown", headline="Nothing was measured.")))
    assert "Nothing was measured." in html
    assert "Operator profile unavailable" in html and "Python hotspots unavailable" in html


def test_write_html_is_atomic_and_returns_the_path(tmp_path):
    path = write_html(F.no_gpu_record(), F.no_gpu_diagnosis(), tmp_path / "sub" / "report.html")
    assert path == tmp_path / "sub" / "report.html"
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]


@pytest.mark.slow
def test_an_hour_at_10hz_stays_a_few_mb():
    record = F.long_record(hours=1.0, hz=10.0, workers=8)
    assert len(record.samples.host.t) == 36_000 and len(record.samples.processes) == 9
    html = render_html(record, F.input_bound_diagnosis())
    assert len(html.encode()) < 3_000_000
    for path in re.findall(r'<path d="([^"]+)" fill="none"', html):
        assert path.count("M") + path.count("L") <= MAX_POINTS
    data = _embedded(html)
    assert "abridged copy" in data["report_note"]
    assert len(data["samples"]["host"]["t"]) <= 1500
    assert "(one tick every" in html


@pytest.mark.parametrize("path", RUNS, ids=[p.name for p in RUNS])
def test_recorded_runs_render(path):
    record, diagnosis = recorded.diagnosed(path)
    html = render_html(record, diagnosis)
    assert htmllib.escape(record.outcome.status) in html
    assert RunRecord.from_dict(_embedded(html)).invocation == record.invocation


def test_public_surface():
    import trainprobe.report as report

    for name in report.__all__:
        assert hasattr(report, name), name
    assert {"render_html", "write_html", "terminal_summary", "json_summary", "downsample"} <= set(report.__all__)
