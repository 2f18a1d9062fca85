"""A batch size the script keeps in a plain variable (``batch_size = 32``), slicing its batches from tensors or
passing it by name to its DataLoader: the batch-size fix names that assignment's line (test set 25's
batch-norm MLP, a later review: its expert's first fix was the line; trainprobe gave none).

Live frames of real code: the variables are read at the first optimizer step, as the probe reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probe_helpers import diagnose
from trainprobe.engine import apply_rules
from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.notebook.cells import cell_filename
from trainprobe.probe.batchvars import BATCH_NAME, batch_variables
from trainprobe.probe.sites import UserCode
from trainprobe.record import BatchVariable

# Each test's script calls seen(), which reads the variables from the frame that calls it (the loop's, as
# the probe's optimizer hook does).
_LOOP = '''
import sys

import torch

batch_size = 16
BATCH_SIZE = 16 * 2          # computed: not a literal to change
eval_batch_size = 16         # an evaluation's: not the training batch
batch = True                 # a bool, not a size


def train(x):
    bs = 8
    mini_batch_size = 8
    for i in range(0, len(x), bs):
        seen(sys._getframe())
        break


train(torch.randn(64, 4))
'''


def _run(source: str, path: Path, namespace: dict) -> list:
    found: list = []
    namespace.update({"__name__": "__main__", "seen": lambda frame: found.append(
        batch_variables(frame, UserCode((str(path.parent),)), namespace.get("loader_sites", ())))})
    exec(compile(source, str(path), "exec"), namespace)
    return found


def test_literal_assignments_of_batch_names_are_found_with_their_lines(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(_LOOP)
    (variables,) = _run(_LOOP, script, {})
    assert set(variables) == {
        BatchVariable("bs", 8, f"{script}:13"),  # a local of the loop's function
        BatchVariable("mini_batch_size", 8, f"{script}:14"),
        BatchVariable("batch_size", 16, f"{script}:6"),  # the module's global
    }


@pytest.mark.parametrize("name, matches", [
    ("batch_size", True), ("BATCH_SIZE", True), ("bsz", True), ("batch_sz", True), ("train_batch_size", True),
    ("batchsize", True), ("mb_size", True), ("eval_batch_size", False), ("val_bs", False), ("n_batches", False),
    ("batch_idx", False), ("num_batches", False),
])
def test_only_names_of_a_training_batch_size_are_read(name, matches):
    assert bool(BATCH_NAME.match(name)) is matches


def test_a_variable_passed_by_name_to_the_scripts_dataloader_is_marked(tmp_path):
    source = ("import sys\n"
              "import torch\n"
              "from torch.utils.data import DataLoader, TensorDataset\n"
              "batch_size = 4\n"
              "loader = DataLoader(TensorDataset(torch.randn(16, 2)), batch_size=batch_size,\n"
              "                    shuffle=True)\n"
              "bs = 4\n"
              "for (x,) in loader:\n"
              "    seen(sys._getframe())\n"
              "    break\n")
    script = tmp_path / "tutorial.py"
    script.write_text(source)
    (variables,) = _run(source, script, {"loader_sites": (f"{script}:5",)})
    assert set(variables) == {BatchVariable("batch_size", 4, f"{script}:4", passed_to_loader=True),
                              BatchVariable("bs", 4, f"{script}:7", passed_to_loader=False)}


def test_a_notebooks_batch_size_set_in_an_earlier_cell_is_found_there(tmp_path):
    notebook = tmp_path / "course.ipynb"
    cells = ["import sys\nimport torch\nbatch_size = 32", "x = torch.randn(128, 3)",
             "for i in range(0, len(x), batch_size):\n    seen(sys._getframe())\n    break"]
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": text,
                                               "execution_count": None} for text in cells],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    found: list = []
    namespace = {"__name__": "__main__", "seen": lambda frame: found.append(
        batch_variables(frame, UserCode((str(tmp_path),))))}
    for number, text in enumerate(cells, start=1):
        exec(compile(text, cell_filename(str(notebook), number), "exec"), namespace)
    assert found == [(BatchVariable("batch_size", 32, f"{cell_filename(str(notebook), 1)}:3"),)]


def test_a_frame_that_cannot_be_read_gives_no_variables():
    assert batch_variables(object(), UserCode(("/",))) == ()


# A course-style MLP: batches sliced from in-memory tensors at batch 8, the size a plain module variable read
# inside the training function.
_SLICED = '''import torch

torch.manual_seed(0)
X = torch.randn(4096, 64)
Y = torch.randint(0, 10, (4096,))
batch_size = 8


def train(model, optimizer, epochs):
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for j in range(len(X) // batch_size):
            xb = X[j * batch_size:(j + 1) * batch_size]
            yb = Y[j * batch_size:(j + 1) * batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()


model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.BatchNorm1d(128), torch.nn.ReLU(),
                            torch.nn.Linear(128, 10))
train(model, torch.optim.SGD(model.parameters(), lr=0.01), epochs=3)
'''


@pytest.mark.slow
def test_a_sliced_batchs_fix_is_its_variables_line(tmp_path):
    script = tmp_path / "course_mlp.py"
    script.write_text(_SLICED)
    _, record = diagnose(tmp_path / "out", str(script), cwd=tmp_path)
    facts = facts_by_name(compute_facts(record))
    assert facts["batch_variable"] == "batch_size" and facts["batch_variable_at"] == "course_mlp.py:6"
    findings = {f.id: f for f in apply_rules(record).findings}
    batch = findings.get("small-batch-overhead")
    assert batch is not None, sorted(findings)
    assert batch.changes_at == "course_mlp.py:6"
    larger = facts["suggested_batch_size"]  # measured: where the fixed cost would be a small share
    assert f"batch_size = {larger} at course_mlp.py:6 (now 8;" in batch.advice, batch.advice
    assert f"batch_size = {larger}   # was 8" in batch.snippet


@pytest.mark.slow
def test_a_loader_built_with_a_literal_names_no_variable(tmp_path):
    """The same size in a variable the DataLoader(...) call does not pass: the loader's own line stays the fix."""
    script = tmp_path / "literal_loader.py"
    script.write_text("import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n"
                      "batch_size = 8\n"
                      "data = TensorDataset(torch.randn(2048, 16), torch.randn(2048, 1))\n"
                      "loader = DataLoader(data, batch_size=8, shuffle=True)\n"
                      "model = torch.nn.Linear(16, 1)\n"
                      "opt = torch.optim.SGD(model.parameters(), lr=0.01)\n"
                      "for epoch in range(2):\n"
                      "    for x, y in loader:\n"
                      "        opt.zero_grad()\n"
                      "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
                      "        opt.step()\n")
    _, record = diagnose(tmp_path / "out", "--warmup-steps", "2", "--window", "1", "--no-profile", str(script),
                         cwd=tmp_path)
    assert [v.name for v in record.settings.batch_variables] == ["batch_size"]  # read, but not passed to it
    facts = facts_by_name(compute_facts(record))
    assert facts["batch_variable"] is None and facts["loader_at"] == "literal_loader.py:5"


@pytest.mark.parametrize("rule_id", ["small-batch-underused-gpu", "low-mfu-small-batch", "small-batch-overhead"])
def test_each_batch_rule_names_the_variable_passed_to_the_loader(rule_id):
    """The rules whose fix is a larger batch: with the loader's batch size passed as a variable, the fix is the
    variable's line; a variable of the same value the loader was not passed is not named."""
    import dataclasses

    from rule_cases.cases import CASES

    record = CASES[rule_id].bad()
    size = next(l.batch_size for l in record.settings.dataloaders if l.used_in_training)
    loaders = tuple(dataclasses.replace(l, built_at="train.py:9") for l in record.settings.dataloaders)

    def finding(passed: bool):
        settings = dataclasses.replace(record.settings, dataloaders=loaders, batch_variables=(
            BatchVariable("bs", size, "train.py:3", passed_to_loader=passed),))
        found = apply_rules(dataclasses.replace(record, settings=settings)).findings
        return next(f for f in found if f.id == rule_id)

    named = finding(True)
    assert named.changes_at == "train.py:3" and "bs" in named.advice and "at train.py:3" in named.advice
    plain = finding(False)
    assert plain.changes_at == "train.py:9" and "train.py:3" not in plain.advice


def test_the_course_mlps_batch_fix_is_at_its_experts_line():
    """Test set 25's batch-norm MLP run again with the variable read (a later review, not the held-out figure):
    `batch_size = 32` at line 142 slices an in-memory tensor; its expert's first fix is that line."""
    from recorded import diagnosed

    record, diagnosis = diagnosed(Path(__file__).parent / "data" / "runs" / "real_test25" / "review"
                                  / "t25_lazyprog_mnist_batchnorm.cpu.run.json.gz")
    batch = next(f for f in diagnosis.findings if f.id == "small-batch-overhead")
    assert batch.changes_at == "pytorch_batchnorm.py:142"
    assert batch.advice.startswith("Use larger batches: batch_size = 256 at pytorch_batchnorm.py:142 (now 32;")
