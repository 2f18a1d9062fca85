"""Mixed precision written for a GPU, run on a CPU: torch turns `torch.cuda.amp.autocast()` off there, the model
runs in float32, and the fix is that line (test set 18's MAE: its expert named the autocast line, trainprobe the
forward under it)."""

from __future__ import annotations

import textwrap

import pytest

import recorded
from trainprobe.probe.sourcelines import cuda_autocast_call

RECORD = recorded.RUNS_DIR / "gpu_code_on_cpu" / "cuda_autocast_on_cpu.cpu.run.json"


def test_the_autocasts_made_for_cuda_are_found_and_the_others_are_not(tmp_path):
    cases = {
        "a.py": ("import torch\nwith torch.cuda.amp.autocast():\n    pass\n", 2),
        "b.py": ("import torch\nx = 1\nwith torch.autocast(device_type='cuda', dtype=torch.float16):\n    pass\n", 3),
        "c.py": ("from torch.cuda.amp import autocast\n\nwith autocast():\n    pass\n", 3),
        "d.py": ("import torch\nwith torch.autocast('cpu', dtype=torch.bfloat16):\n    pass\n", None),
        "e.py": ("from torch import autocast\nwith autocast(device_type=device):\n    pass\n", None),
    }
    for name, (text, line) in cases.items():
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        assert cuda_autocast_call([str(path)]) == (f"{path}:{line}" if line else None), name


def test_the_bf16_fix_changes_the_cuda_autocast_line():
    """A real run of tests/scripts/cuda_autocast_on_cpu.py on the 2-core VM (its CPU multiplies bf16 faster)."""
    record, diagnosis = recorded.diagnosed(RECORD)
    assert record.settings.cuda_autocast_at.endswith("cuda_autocast_on_cpu.py:19")
    values = diagnosis.fact_values()
    assert values["autocast_used"] is False  # torch turned it off
    bf16 = next(f for f in diagnosis.findings if f.id == "cpu-bf16-not-used")
    assert bf16.changes_at == values["cuda_autocast_at"]
    assert 'torch.autocast("cpu", dtype=torch.bfloat16)' in bf16.advice and "made for CUDA" in bf16.advice


def test_a_cuda_autocast_behind_an_amp_option_that_is_off_says_to_switch_it_on():
    """ConvNeXt (test set 20, its later review): `with torch.cuda.amp.autocast():` at engine.py:52 runs only under
    --use_amp, which defaults to False; its expert's fix was both (main.py:191 and engine.py:52). The fix changes
    the autocast's line and says the option is off in this run; a script without such an option is told nothing
    of one."""
    _, diagnosis = recorded.diagnosed(recorded.RUNS_DIR / "real_test20" / "review" / "t20_fb_convnext_tiny.cpu.run.json.gz")
    bf16 = next(f for f in diagnosis.findings if f.id == "cpu-bf16-not-used")
    assert bf16.changes_at == "engine.py:52"
    assert "once the script's mixed-precision option is on (--use_amp, declared at main.py:191, is off in this run)" \
        in bf16.advice
    _, plain = recorded.diagnosed(RECORD)
    assert "is off in this run" not in next(f for f in plain.findings if f.id == "cpu-bf16-not-used").advice


@pytest.mark.parametrize("value, on", [("False", False), ("True", True), ("no", False), ("bf16", True),
                                       ("32-true", False), ("bf16-mixed", True), (None, None)])
def test_the_amp_options_parsed_value_says_whether_it_is_on(value, on):
    from dataclasses import replace

    from trainprobe.facts import compute_facts, facts_by_name
    from trainprobe.record import CliFlag, RunRecord, Settings

    flag = CliFlag(options=("--amp",), dest="amp", value=value)
    record = RunRecord(settings=Settings(cli_flags=(flag,)))
    assert facts_by_name(compute_facts(record))["flag_amp_on"] is on
    assert facts_by_name(compute_facts(replace(record, settings=Settings())))["flag_amp_on"] is None
