"""Where the files live must not change what trainprobe sees: a user's script in a folder named
``trainprobe`` (or ``torch``) is still the user's code, and trainprobe's own frames are still hidden.
trainprobe tells its own code and torch's by the packages' real folders (trainprobe/probe/frames.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from probe_helpers import FAST, SCRIPTS, diagnose, own_frames
from trainprobe.probe import frames


@pytest.mark.parametrize("folder", ["trainprobe", "torch", "trainprobe/trainprobe"])
def test_a_script_in_a_folder_named_like_a_package_is_the_users(tmp_path, folder):
    script = tmp_path / folder / "train.py"
    script.parent.mkdir(parents=True)
    script.write_text("print('hi')\n")
    assert not frames.is_trainprobe(str(script)) and not frames.is_torch(str(script))


def test_the_packages_own_files_are_theirs():
    import torch

    assert frames.is_trainprobe(frames.__file__)
    assert frames.is_torch(torch.nn.Module.__init__.__code__.co_filename)
    assert not frames.is_trainprobe("<frozen runpy>") and not frames.inside("", frames.TRAINPROBE_DIR)


@pytest.mark.slow
def test_a_crash_in_a_script_inside_a_folder_named_trainprobe_keeps_its_frames_and_its_lines(tmp_path):
    """What a clone of trainprobe looks like from inside: its folder is named trainprobe."""
    script = tmp_path / "trainprobe" / "loop.py"
    script.parent.mkdir()
    shutil.copy(SCRIPTS / "loop.py", script)
    proc, record = diagnose(tmp_path / "out", *FAST, str(script), "--ending", "crash", "--at", "7",
                            cwd=script.parent)
    assert record.outcome.status == "failed", record.outcome
    text = record.outcome.traceback
    assert f'File "{script}", line' in text, text  # the script's frames are kept
    assert own_frames(text) == [] and own_frames(proc.stderr) == [], text
    # The DataLoader is placed at the script's line, not skipped as if it were trainprobe's code.
    sites = [d.created_at for d in record.settings.dataloaders]
    assert sites and all(site and Path(site.rsplit(":", 1)[0]).resolve() == script.resolve() for site in sites), sites
