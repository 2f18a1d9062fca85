"""Tests marked ``gpu`` need a CUDA GPU: without one they are skipped, and say so."""

from __future__ import annotations

import sys

import pytest

# Where PYTHONDONTWRITEBYTECODE is set (as on our VMs), pytest would rewrite and compile every test module's
# assertions again on each run: about 4 s of the quick loop's collection. The suite keeps its compiled test
# modules (in __pycache__/, which git ignores) whatever the environment says; the user scripts it runs are
# not affected (they run in their own processes, with the environment as given).
sys.dont_write_bytecode = False


def pytest_collection_modifyitems(config, items):
    gpu_tests = [item for item in items if "gpu" in item.keywords]
    if not gpu_tests:
        return
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none here); run them where a GPU is lent")
    for item in gpu_tests:
        item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _one_cpu_peak_measurement_per_session(tmp_path_factory):
    """The runs this session diagnoses share one measurement of the CPU's peak (probe/peak.py's
    TRAINPROBE_CPU_PEAK_FILE): the first run measures it, the others reuse it (0.7 s each)."""
    import os

    from trainprobe.probe.peak import PEAK_FILE_ENV

    before = os.environ.get(PEAK_FILE_ENV)
    os.environ[PEAK_FILE_ENV] = str(tmp_path_factory.mktemp("peak") / "cpu-peak.json")
    yield
    if before is None:
        os.environ.pop(PEAK_FILE_ENV, None)
    else:
        os.environ[PEAK_FILE_ENV] = before
