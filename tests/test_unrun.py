"""What a clean stop kept from running: a script's second training phase (probe/unrun.py, sourcelines).

The probe stops a script once its windows are measured; a script that trains twice (one model, then
another, as tutorials do) is judged by the first. The reader is told when training code follows the
measured loop. Notebooks: tests/test_notebook_read.py."""

from __future__ import annotations

import sys
import types
from pathlib import Path

from trainprobe.probe.sourcelines import training_after
from trainprobe.probe.stop import ProbeStop
from trainprobe.probe.unrun import left_unrun

SCRIPT = '''\
import torch


def train(model, loader, stop):
    for epoch in range(3):
        for x in loader:
            model(x).backward()
            stop()
            model2(x).backward()
        validate(model)
    return model


def main(stop):
    mlp = train(make_mlp(), [1], stop)
    mlp.train()
    cnn = train(make_cnn(), [1], stop)


for i in range(10):
    model(x).backward()
net.fit(X, y)
scaler.fit_transform(X)
'''


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def test_only_what_follows_the_measured_loop_is_a_later_phase(tmp_path):
    path = str(_script(tmp_path))
    assert training_after(path, 7) is None  # the rest of the loop body (a GAN's second step) is the same phase
    assert training_after(path, 9) is None  # ... and after the loop: validate(), return
    assert training_after(path, 15) == (17, "train")  # main(): train(mlp) then train(cnn); mlp.train() is a mode
    assert training_after(path, 17) is None
    assert training_after(path, 21) == (22, "fit")  # a module-level loop, then net.fit(...)
    assert training_after(path, 23) is None  # fit_transform is preprocessing
    assert training_after(str(tmp_path / "gone.py"), 3) is None


def test_a_script_stopped_in_its_first_training_says_the_second_did_not_run(tmp_path, monkeypatch):
    path = _script(tmp_path)
    main = types.ModuleType("__main__")
    main.__file__ = str(path)
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    exec(compile(SCRIPT.split("\n\nfor i in range")[0], str(path), "exec"), namespace)  # noqa: S102

    def stop():
        raise ProbeStop("measured enough steps")

    class Model:
        def __call__(self, x):
            return self

        def backward(self):
            pass

    namespace.update(make_mlp=Model, make_cnn=Model, model2=Model())
    try:
        namespace["main"](stop)
    except ProbeStop as exc:
        assert left_unrun(exc) == ("the script trains again after the measured loop (train.py:17: train(...)), "
                                   "which did not run: this report is about the training measured first")
    else:
        raise AssertionError("no stop")


def test_what_never_ran_reaches_the_outcome_and_the_terminal():
    """The child's note travels in its outcome event to the record's Outcome, and the terminal's summary
    prints it under the verdict: a reader who sees only the terminal knows the report is about the first
    training of two."""
    from dataclasses import replace

    import recorded
    from trainprobe.probe.outcome import build_outcome
    from trainprobe.report.terminal import terminal_summary

    note = ("the script trains again after the measured loop (train.py:17: train(...)), which did not run: this "
            "report is about the training measured first")
    outcome = build_outcome(0, {"status": "stopped", "reason": f"measured enough steps; {note}", "left_unrun": note},
                            timed_out=False, interrupted=False, duration=10.0, startup=1.0, stop_requested=None)
    assert outcome.status == "stopped" and outcome.left_unrun == note and outcome.reason.endswith(note)
    record, diagnosis = recorded.diagnosed(recorded.RUNS_DIR / "clean_mlp.cpu.run.json")
    text = terminal_summary(replace(record, outcome=outcome), diagnosis, None, color=False)
    assert f"  not run: {note}" in text.splitlines()
    assert "not run:" not in terminal_summary(record, diagnosis, None, color=False)  # a run stopped with nothing left


def test_splitting_data_or_building_a_loader_is_not_training():
    import ast
    from trainprobe.probe.sourcelines import training_call
    calls = {name: training_call(ast.parse(f"{name}(x)").body[0].value)
             for name in ("train_test_split", "train_dataloader", "train_model", "train_one_epoch", "fit_transform",
                          "fit_one_cycle")}
    assert calls == {"train_test_split": None, "train_dataloader": None, "train_model": "train_model",
                     "train_one_epoch": "train_one_epoch", "fit_transform": None, "fit_one_cycle": "fit_one_cycle"}
