import io
import json
from pathlib import Path

import report_fakes as F
from trainprobe import display
from trainprobe.report import json_summary, terminal_summary


def test_summary_has_verdict_numbers_top_findings_and_path():
    text = terminal_summary(F.input_bound_record(), F.input_bound_diagnosis(), Path("/tmp/r/report.html"), color=False)
    lines = text.splitlines()
    assert lines[0].startswith("Input-bound: The GPU waits for data")
    facts = F.input_bound_diagnosis().fact_values()
    assert f"step time {display.seconds(facts['step_time'])}" in text
    assert f"samples/s {display.number(facts['samples_per_second'])}" in text
    assert text.index("Too few DataLoader workers") < text.index("pin_memory is off")
    assert "→ Set num_workers=8" in text
    assert lines[-1] == "Report: /tmp/r/report.html"
    assert "\x1b[" not in text


def test_top_limits_the_findings():
    text = terminal_summary(F.input_bound_record(), F.input_bound_diagnosis(), None, color=False, top=1)
    assert "Too few DataLoader workers" in text and "pin_memory is off" not in text
    assert "Top findings (1 of 2)" in text and "Report:" not in text


def test_colour_only_when_asked():
    text = terminal_summary(F.input_bound_record(), F.input_bound_diagnosis(), None, color=True)
    assert "\x1b[1;36mInput-bound\x1b[0m" in text


def test_crash_is_said_first():
    text = terminal_summary(F.crashed_record(), F.crashed_diagnosis(), None, color=False)
    assert text.splitlines()[0] == "The run failed (exit code 1)."
    assert "RuntimeError: CUDA error: out of memory" in text


def test_json_summary_for_machines():
    data = json_summary(F.input_bound_record(), F.input_bound_diagnosis(), Path("/tmp/r/report.html"),
                        Path("/tmp/r/run.json"))
    json.dumps(data, allow_nan=False)
    assert data["verdict"]["category"] == "input"
    facts = F.input_bound_diagnosis().fact_values()
    assert data["verdict"]["step_time_s"] == facts["step_time"]
    assert data["verdict"]["samples_per_second"] == facts["samples_per_second"]
    assert [f["id"] for f in data["findings"]] == ["dataloader-too-few-workers", "dataloader-pin-memory-off"]
    assert set(data["findings"][0]) >= {"id", "severity", "category", "message", "advice", "gain", "evidence"}
    assert data["outcome"]["status"] == "stopped" and data["outcome"]["exit_code"] == 0
    assert data["report_path"] == "/tmp/r/report.html" and data["record_path"] == "/tmp/r/run.json"


def test_json_summary_of_a_crash():
    data = json_summary(F.crashed_record(), F.crashed_diagnosis(), None)
    assert data["verdict"]["category"] == "unknown" and data["verdict"]["step_time_s"] is None
    assert data["outcome"]["status"] == "failed" and data["outcome"]["exit_code"] == 1
    assert data["findings"] == [] and data["steps_measured"] == 0
