"""What the what-if measured shows where the user reads the verdict and each finding."""

import dataclasses

from report_fakes import input_bound_diagnosis, input_bound_record
from trainprobe.findings import Verification, WhatIf
from trainprobe.report import render_html, terminal_summary


def _verified():
    diagnosis = input_bound_diagnosis()
    first = dataclasses.replace(diagnosis.findings[0], verification=Verification(
        status="measured", speedup=2.4, low=2.3, high=2.5, n=3, text="measured: 2.40× faster steps (2.30–2.50, n=3)"))
    combined = Verification(status="no_gain", speedup=1.01, low=0.9, high=1.2, n=2,
                            text="what your script could do with num_workers=4, set_to_none: no measurable gain <here>")
    return dataclasses.replace(diagnosis, findings=(first,) + diagnosis.findings[1:], whatif=WhatIf(combined=combined))


def test_terminal_summary_shows_measured_gains():
    text = terminal_summary(input_bound_record(), _verified(), None, color=False, top=10)
    assert "measured: 2.40× faster steps (2.30–2.50, n=3)" in text
    assert "what-if: what your script could do with num_workers=4, set_to_none" in text


def test_report_shows_the_combined_run_escaped():
    html = render_html(input_bound_record(), _verified())
    assert "every helpful fix together" in html
    assert "no measurable gain &lt;here&gt;" in html
    assert "measured: 2.40× faster steps" in html
