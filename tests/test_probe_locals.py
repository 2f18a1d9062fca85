"""The probe reads frames to find who built a model or drives the loop; on Python before 3.13 reading a running
frame's f_locals refills the dict its own locals() returned. A script that keeps and edits that dict must run
under trainprobe as under python (test set 18's imagen-pytorch failed: "got multiple values for argument 'self'")."""

from __future__ import annotations

import pytest

from probe_helpers import ONE_RUN, SCRIPTS, diagnose, plain_python

pytestmark = pytest.mark.slow  # a probed run of 12 steps, about 10 s

SCRIPT = SCRIPTS / "locals_snapshot.py"


def test_a_model_that_rebuilds_itself_from_its_locals_trains_as_under_python(tmp_path):
    plain = plain_python(str(SCRIPT))
    assert plain.returncode == 0 and "rebuilt with 3 layers" in plain.stdout, plain.stderr
    proc, record = diagnose(tmp_path / "out", *ONE_RUN, str(SCRIPT))
    assert proc.returncode == 0, proc.stderr
    assert record.outcome.status == "completed", record.outcome.reason
    assert "rebuilt with 3 layers" in proc.stdout + proc.stderr
    assert record.steps  # and it was measured
