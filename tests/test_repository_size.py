"""The repository's working tree stays small enough to travel to a lent GPU machine.

The device tool carries the checkout (tracked files and untracked ones git does not ignore) to the GPU
machine, at most 64 MiB a call (/work/.library/device/README.md). At 64.6 MiB of tracked files the
GPU campaign could not have been run at all; recorded GPU runs are kept gzipped since. This guard
leaves room for a campaign's records and traces (a few MiB) beside the tracked files.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEVICE_LIMIT = 64 * 2**20
ROOM_FOR_A_CAMPAIGN = 6 * 2**20


def test_tracked_files_leave_room_for_a_gpu_campaign_under_the_device_limit():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    total = sum((ROOT / n).stat().st_size for n in names.decode().split("\0") if n and (ROOT / n).is_file())
    assert total <= DEVICE_LIMIT - ROOM_FOR_A_CAMPAIGN, \
        f"tracked files are {total / 2**20:.1f} MiB: keep recorded data gzipped or move it out"
