"""The script runs under the probe exactly as under plain python."""

import shutil

import pytest

from probe_helpers import FAST, ONE_RUN, SCRIPTS, diagnose, parity_line, plain_python


@pytest.mark.slow
@pytest.mark.parametrize("exit_code", [0, 3])
def test_script_sees_what_plain_python_gives(tmp_path, exit_code):
    work = tmp_path / "work"
    work.mkdir()
    script = shutil.copy(SCRIPTS / "parity.py", work / "parity.py")
    args = ["parity.py", "--lr", "0.1", "--", "x y"]
    env = {"PARITY_EXIT": str(exit_code)}
    plain = plain_python(*args, stdin="hello\n", cwd=work, env=env)
    probed, record = diagnose(tmp_path / "out", *args, stdin="hello\n", cwd=work, env=env)

    assert parity_line(probed.stdout) == parity_line(plain.stdout)
    assert parity_line(plain.stdout)["stdin"] == "hello"
    assert "to stderr" in probed.stderr
    assert probed.returncode == plain.returncode == exit_code
    assert record.outcome.exit_code == exit_code
    assert record.outcome.status == ("completed" if exit_code == 0 else "failed")
    assert record.invocation.script == str(script)
    assert record.invocation.args == ("--lr", "0.1", "--", "x y")


@pytest.mark.slow
def test_double_dash_after_script_is_not_passed_on(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(SCRIPTS / "parity.py", work / "parity.py")
    probed, _ = diagnose(tmp_path / "out", "parity.py", "--", "--epochs", "3", cwd=work)
    plain = plain_python("parity.py", "--epochs", "3", cwd=work)
    assert parity_line(probed.stdout)["argv"] == parity_line(plain.stdout)["argv"] == ["parity.py", "--epochs", "3"]


@pytest.mark.slow
def test_module_mode_matches_python_dash_m(tmp_path):
    work = tmp_path / "work"
    shutil.copytree(SCRIPTS / "parity_pkg", work / "parity_pkg")
    plain = plain_python("-m", "parity_pkg.mod", "a", cwd=work)
    probed, record = diagnose(tmp_path / "out", "-m", "parity_pkg.mod", "a", cwd=work)
    assert parity_line(probed.stdout) == parity_line(plain.stdout)
    assert record.invocation.module == "parity_pkg.mod"


@pytest.mark.slow
def test_script_without_main_guard_and_fork_workers(tmp_path):
    plain = plain_python(str(SCRIPTS / "unguarded.py"))
    probed, record = diagnose(tmp_path / "out", *ONE_RUN, str(SCRIPTS / "unguarded.py"))
    assert plain.returncode == probed.returncode == 0
    assert "unguarded done" in probed.stdout
    assert record.settings.dataloaders[0].num_workers == 2
    assert record.settings.dataloaders[0].start_method == "fork"
    assert sum(w.batches for w in record.workers) == 16  # 256 samples / 16, fetched by the two workers


def test_missing_script_is_a_clear_message(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "trainprobe", "diagnose", "-o", str(tmp_path / "o"), "nope.py"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "script not found: nope.py" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_the_scripts_own_checkpoints_of_its_model_work_and_hold_nothing_of_trainprobe(tmp_path):
    """torch.save(model) and copy.deepcopy(model) pickle the module: the probe's hooks on it must not
    break them (they hold open files) nor end up in the user's file."""
    checkpoint = tmp_path / "model.pt"
    proc, record = diagnose(tmp_path / "out", *FAST, str(SCRIPTS / "saves_model.py"), str(checkpoint))
    assert record.outcome.status in ("stopped", "completed"), record.outcome
    assert proc.returncode == 0, proc.stderr
    assert len(record.steps) >= 8  # it saved after every one of them
    assert b"trainprobe" not in checkpoint.read_bytes()
    loaded = plain_python("-c", f"import torch; m = torch.load({str(checkpoint)!r}, weights_only=False); "
                                "print(len(m._forward_pre_hooks), len(m._forward_hooks))")
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.split() == ["0", "0"]
    # The loss module pickles its state its own way: the probe's hooks are left out of it too.
    losses = checkpoint.with_name(checkpoint.name + ".loss")
    assert b"trainprobe" not in losses.read_bytes()
    loaded = plain_python("-c", f"import torch; d = torch.load({str(losses)!r}, weights_only=False); "
                                "print(*(len(m._forward_pre_hooks) + len(m._forward_hooks) for m in d.values()))",
                          cwd=SCRIPTS)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.split() == ["0", "0"]


@pytest.mark.slow
def test_lazy_layers_called_one_by_one_before_their_parameters_exist_run_as_under_python(tmp_path):
    """A model of lazy layers, each called alone before training (d2l's LeNet does this): the probe's
    forward hooks once read a lazy layer's weight, which raises before its first forward, and the
    script failed under trainprobe only."""
    script = SCRIPTS / "lazy_layers.py"
    plain = plain_python(str(script))
    assert plain.returncode == 0 and plain.stdout.rstrip().endswith("done"), plain.stderr
    proc, record = diagnose(tmp_path / "out", *ONE_RUN, str(script))
    assert proc.returncode == 0, proc.stderr
    assert record.outcome.status == "completed", record.outcome
    model = max(record.settings.models, key=lambda m: m.params or 0)
    assert model.params == sum(p.numel() for p in _lenet().parameters())


def _lenet():
    import torch
    import torch.nn as nn
    net = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.Conv2d(6, 16, 5), nn.Linear(400, 120), nn.Linear(120, 10))
    return net
