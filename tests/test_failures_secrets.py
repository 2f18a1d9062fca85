"""Secrets passed as script arguments stay out of run.json, the report and the run folder, unless
--keep-args; the script itself gets them as typed."""

from __future__ import annotations

import html
import json

import pytest

from trainprobe.cli import main
from trainprobe.probe.launch import ProbeOptions, invocation_for as _invocation
from trainprobe.probe.redact import REDACTED, redact_args
from trainprobe.record import Invocation
from trainprobe.whatif.verify import WhatIfUnavailable, target_of

SECRETS = ["--api-key", "sk-SECRET-1", "--hf_token=hf_SECRET_2", "WANDB_API_KEY=SECRET3", "--db-password", "SECRET4"]


def test_secret_looking_arguments_are_redacted_and_others_kept():
    args, names = redact_args(["--epochs", "3", *SECRETS, "--max-tokens", "512", "--token-limit", "5",
                               "--token", "--lr", "0.1", "--password"])
    assert args == ("--epochs", "3", "--api-key", REDACTED, f"--hf_token={REDACTED}", f"WANDB_API_KEY={REDACTED}",
                    "--db-password", REDACTED, "--max-tokens", "512", "--token-limit", "5",
                    "--token", "--lr", "0.1", "--password")
    assert names == ("--api-key", "--hf_token", "WANDB_API_KEY", "--db-password")


def test_the_invocation_saves_redacted_arguments_unless_keep_args(tmp_path):
    target = ["train.py", "--epochs", "1", *SECRETS]
    saved = _invocation(target, ProbeOptions(out_dir=tmp_path), 0.0)
    assert "SECRET" not in json.dumps(saved.to_dict())
    assert saved.redacted == ("--api-key", "--hf_token", "WANDB_API_KEY", "--db-password")
    kept = _invocation(target, ProbeOptions(out_dir=tmp_path, keep_args=True), 0.0)
    assert kept.args == tuple(target[1:]) and not kept.redacted


def test_a_redacted_record_is_not_re_run_with_the_placeholders():
    invocation = Invocation(script=__file__, args=("--api-key", REDACTED), redacted=("--api-key",))
    with pytest.raises(WhatIfUnavailable, match="--keep-args"):
        target_of(invocation)


SCRIPT = '''
import sys, torch
assert sys.argv[1:] == {args!r}, sys.argv  # the script gets the real values
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(60):
    opt.zero_grad()
    model(torch.randn(16, 8)).sum().backward()
    opt.step()
'''


@pytest.mark.slow
def test_no_file_of_the_run_holds_the_secret(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(args=SECRETS))
    code = main(["diagnose", "-q", "-o", str(tmp_path / "run"), "--warmup-steps", "2", "--no-profile",
                 str(script), *SECRETS])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "SECRET" not in out.out + out.err
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert b"SECRET" not in path.read_bytes(), path
    assert "--api-key '<redacted>'" in html.unescape((tmp_path / "run" / "report.html").read_text())
