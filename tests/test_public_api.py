"""The public surface is what each module's __all__ says, and every name in it exists."""

import importlib

import pytest

MODULES = [
    "trainprobe",
    "trainprobe.api",
    "trainprobe.record",
    "trainprobe.findings",
    "trainprobe.jsonio",
    "trainprobe.resources",
    "trainprobe.cli",
    "trainprobe.probe.launch",
    "trainprobe.probe.runner",
    "trainprobe.probe.clock",
    "trainprobe.probe.config",
    "trainprobe.probe.events",
    "trainprobe.probe.settings",
    "trainprobe.probe.workers",
    "trainprobe.probe.samplers",
    "trainprobe.report",
    "trainprobe.engine",
    "trainprobe.facts",
    "trainprobe.machine",
]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ names {attr}, which does not exist"


def test_record_round_trips_through_json(tmp_path):
    from trainprobe.record import RunRecord, Step, Outcome

    record = RunRecord(steps=(Step(index=0, duration=0.5, data_wait=0.25, phase="steady"),),
                       outcome=Outcome(status="stopped", exit_code=0))
    path = tmp_path / "run.json"
    record.save(path)
    assert RunRecord.load(path) == record


def test_old_records_with_missing_fields_still_load():
    from trainprobe.record import RunRecord

    record = RunRecord.from_dict({"schema_version": 1, "steps": [{"index": 3, "duration": 0.1}], "future": 1})
    assert record.steps[0].index == 3 and record.steps[0].phase == "warmup"


def test_cli_main_returns_an_exit_code(capsys):
    from trainprobe.cli import main

    assert main(["--version"]) == 0
    assert "trainprobe" in capsys.readouterr().out
    assert main(["no-such-command"]) == 2
