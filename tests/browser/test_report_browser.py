"""Reports opened in headless Chromium: no console error, no request, the verdict on the first screen.

Set TRAINPROBE_SCREENSHOTS=/some/folder to keep 1280×800 screenshots of each report.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import report_fakes as F
from chromium import find_chromium, load_report, screenshot
from trainprobe.findings import Diagnosis, Verdict
from trainprobe.record import RunRecord
from trainprobe.report import write_html

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed"),
]

FIRST_SCREEN = 800
RUNS = sorted((Path(__file__).parent.parent / "data" / "runs").glob("*.run.json"))
CASES = dict(F.CASES, xss=(F.xss_record, F.xss_diagnosis))


def _open(tmp_path: Path, name: str, record: RunRecord, diagnosis: Diagnosis):
    path = write_html(record, diagnosis, tmp_path / f"{name}.html")
    keep = os.environ.get("TRAINPROBE_SCREENSHOTS")
    if keep:
        screenshot(path, Path(keep) / f"{name}.png")
    return load_report(path)


def _assert_clean(page) -> None:
    assert page.errors == []
    assert page.resources == []  # not one request, local or remote
    assert page.console == []
    assert page.probe["record_error"] is None


@pytest.mark.parametrize("name", sorted(CASES))
def test_report_loads_without_error_or_request(tmp_path, name):
    record, diagnosis = CASES[name]
    page = _open(tmp_path, name, record(), diagnosis())
    _assert_clean(page)
    assert page.probe["images"] == 0


def test_input_bound_verdict_and_starving_gpu_on_first_screen(tmp_path):
    page = _open(tmp_path, "input_bound_first_screen", F.input_bound_record(), F.input_bound_diagnosis())
    # the copy button answers without a network (headless Chromium may refuse the clipboard: then it selects)
    assert page.probe["clicked"]["copy_label"] in ("Copied", "Selected: press Ctrl+C")
    assert page.probe["clicked"]["download"] == {"name": "run.json", "href": "blob:"}
    bottoms = page.probe["bottoms"]
    assert bottoms[".headline"] < FIRST_SCREEN
    assert bottoms[".hero svg"] < FIRST_SCREEN  # the GPU utilization timeline
    assert bottoms[".hero-note"] < FIRST_SCREEN  # "The GPU ran kernels 31% of the time and sat idle 69%"


def test_crashed_run_shows_banner_and_traceback_first(tmp_path):
    page = _open(tmp_path, "crashed_first_screen", F.crashed_record(), F.crashed_diagnosis())
    bottoms = page.probe["bottoms"]
    assert bottoms[".banner"] < FIRST_SCREEN and bottoms["#outcome .traceback"] < FIRST_SCREEN
    assert page.probe["record_exception"].endswith("</script><script>alert(1)</script>")


def test_no_gpu_run_says_why_on_first_screen(tmp_path):
    page = _open(tmp_path, "no_gpu_first_screen", F.no_gpu_record(), F.no_gpu_diagnosis())
    assert page.probe["bottoms"][".verdict .unavailable"] < FIRST_SCREEN


def test_script_named_like_markup_shows_as_text(tmp_path):
    page = _open(tmp_path, "xss", F.xss_record(), F.xss_diagnosis())
    assert not any(e.startswith("alert") for e in page.errors)
    assert page.probe["title"].startswith("trainprobe: <img src=x onerror=alert(1)>.py")
    assert page.probe["record_script"].endswith("<img src=x onerror=alert(1)>.py")


def test_an_hour_long_report_opens(tmp_path):
    page = _open(tmp_path, "one_hour", F.long_record(), F.input_bound_diagnosis())
    _assert_clean(page)


def test_long_tables_unfold(tmp_path):
    record = F.input_bound_record()
    many = tuple(F.replace(record.hotspots.main[0], function=f"f{i}", line=i) for i in range(30))
    page = _open(tmp_path, "many_rows", F.replace(record, hotspots=F.replace(record.hotspots, main=many)),
                 F.input_bound_diagnosis())
    _assert_clean(page)
    assert page.probe["clicked"]["more_visible"] is True


@pytest.mark.parametrize("path", RUNS, ids=[p.name for p in RUNS])
def test_recorded_runs_load_cleanly(tmp_path, path):
    record = RunRecord.load(path)
    try:
        from trainprobe.engine import apply_rules as diagnose
        diagnosis = diagnose(record)
    except ImportError:
        diagnosis = Diagnosis(verdict=Verdict(category="unknown", headline="(rendered without the rule engine)"))
    _assert_clean(_open(tmp_path, path.name.removesuffix(".run.json"), record, diagnosis))


def test_the_probe_sees_errors_and_requests(tmp_path):
    """The checks above can fail: a page with a remote image and a throwing script is caught."""
    html = write_html(F.no_gpu_record(), F.no_gpu_diagnosis(), tmp_path / "bad.html").read_text(encoding="utf-8")
    bad = html.replace("</main>", '<img src="https://example.invalid/x.png"><img src="local.png">'
                                  "<script>console.error('boom'); undefinedFunction();</script></main>")
    (tmp_path / "bad.html").write_text(bad, encoding="utf-8")
    page = load_report(tmp_path / "bad.html")
    assert any(e.startswith("csp:") and "example.invalid" in e for e in page.errors)
    assert any("undefinedFunction" in e for e in page.errors)
    assert any("boom" in e for e in page.errors)
