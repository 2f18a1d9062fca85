"""Notebooks without a kernel: reading the cells, planning their run, naming cells where files were
named, and refusing what cannot run with one sentence. All fast: no torch, no child process but one
plain python."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trainprobe.api import TrainprobeError, check_target
from trainprobe.cli import main
from trainprobe.notebook import outcome as nb_outcome
from trainprobe.notebook.cells import cell_filename, describe, describe_site, in_cell_terms
from trainprobe.notebook.magic import parse_options
from trainprobe.notebook.read import NotebookError, plan_notebook, read_cells
from trainprobe.notebook.relabel import relabel_cells
from trainprobe.record import FuncStat, Hotspots, LoaderSettings, Outcome, RunRecord, Settings


def write_notebook(path: Path, cells: list, markdown_first: bool = True) -> Path:
    items = [{"cell_type": "markdown", "metadata": {}, "source": ["# a title\n"]}] if markdown_first else []
    for source in cells:
        items.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source})
    path.write_text(json.dumps({"cells": items, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}))
    return path


def test_code_cells_are_numbered_in_order_with_source_as_a_list_or_a_string(tmp_path):
    nb = write_notebook(tmp_path / "a.ipynb", [["x = 1\n", "y = 2"], "print(x + y)", ""])
    cells, language = read_cells(nb)
    assert [(c.number, c.source) for c in cells] == [(1, "x = 1\ny = 2"), (2, "print(x + y)"), (3, "")]
    assert language == "python"


@pytest.mark.parametrize("text, says", [
    ("{not json", "is not a notebook (not JSON"),
    ('{"cells": 3}', "is not a Jupyter notebook"),
    ("[1, 2]", "is not a Jupyter notebook"),
])
def test_a_file_that_is_no_notebook_is_refused_in_one_sentence(tmp_path, text, says):
    path = tmp_path / "bad.ipynb"
    path.write_text(text)
    with pytest.raises(NotebookError, match=says.replace("(", r"\(")):
        read_cells(path)
    with pytest.raises(TrainprobeError, match=says.replace("(", r"\(")):
        check_target([str(path)])


def test_lines_that_change_the_machine_are_skipped_and_keep_the_line_numbers(tmp_path):
    nb = write_notebook(tmp_path / "a.ipynb", [
        "!pip install -q timm\nimport os",
        "%%capture\n%pip install foo\nif True:\n    !sudo apt-get install -y libjpeg",
        "%%bash\npip install bar\necho kept",
        "!pip list\n!conda env update -f env.yml",
    ])
    plan = plan_notebook(nb)
    assert [(s.cell, s.line, s.text) for s in plan.skipped] == [
        (1, 1, "!pip install -q timm"), (2, 2, "%pip install foo"), (2, 4, "!sudo apt-get install -y libjpeg"),
        (3, 2, "pip install bar"), (4, 2, "!conda env update -f env.yml")]
    assert plan.cells[0].source == "pass\nimport os"
    assert plan.cells[1].source == "%%capture\npass\nif True:\n    pass"
    assert plan.cells[2].source == "%%bash\n:\necho kept"
    assert plan.cells[3].source.startswith("!pip list\n")  # reading is not changing
    note = nb_outcome.skipped_note(plan)
    assert "cell 1, line 1: !pip install -q timm" in note and "cell 4, line 2: !conda env update" in note


@pytest.mark.parametrize("source, needs", [
    ("%matplotlib inline", True), ("!nvidia-smi", True), ("files = !ls", True), ("model?", True),
    ("%%time\nx = 1", True), ("x = 7 % 3", False), ('s = """\n%d items\n!"""', False),
    ("!pip install torch", False),  # skipped, so no IPython is needed for it
])
def test_cells_that_need_ipython_are_told_apart_from_python(tmp_path, source, needs):
    plan = plan_notebook(write_notebook(tmp_path / "a.ipynb", ["import os", source]))
    assert plan.needs_ipython is needs
    if needs:
        assert plan.ipython.cell == 2 and plan.ipython.line == 1


def test_without_ipython_a_notebook_with_magics_is_refused_naming_the_install(tmp_path, monkeypatch, capsys):
    nb = write_notebook(tmp_path / "magic.ipynb", ["import os", "%matplotlib inline"])
    monkeypatch.setattr(nb_outcome, "_has_ipython", lambda: False)
    with pytest.raises(TrainprobeError) as info:
        check_target([str(nb)])
    assert "pip install 'trainprobe[notebook]'" in str(info.value) and "cell 2, line 1" in str(info.value)
    assert main(["diagnose", "-o", str(tmp_path / "out"), str(nb)]) == 2
    err = capsys.readouterr().err
    assert "pip install 'trainprobe[notebook]'" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    plain = write_notebook(tmp_path / "plain.ipynb", ["import os", "!pip install x"])
    check_target([str(plain)])  # runs without IPython: the one IPython line is skipped


def test_cell_file_names_read_as_cells_everywhere():
    name = cell_filename("/home/me/course/train.ipynb", 6)
    assert describe(name, 4) == "cell 6, line 4"
    assert describe(cell_filename("/x/nb.ipynb", "In[7]"), 2) == "cell In[7], line 2"
    assert describe("/home/me/train.py", 4) is None
    assert describe_site(f"{name}:12") == "cell 6, line 12" and describe_site("/a/b.py:3") == "/a/b.py:3"
    text = f'Traceback (most recent call last):\n  File "{name}", line 4, in <module>\n    1 / 0\nZeroDivisionError'
    assert '  File "train.ipynb", cell 6, line 4, in <module>' in in_cell_terms(text)
    assert nb_outcome.failed_cell(in_cell_terms(text)) == ("6", 4)


def test_a_failure_names_its_cell_and_the_skipped_lines_are_noted(tmp_path):
    nb = write_notebook(tmp_path / "a.ipynb", ["!pip install timm", "x = 1", "1 / 0"])
    traceback = in_cell_terms(f'Traceback (most recent call last):\n  File "{cell_filename(str(nb), 3)}", line 1, '
                              'in <module>\nZeroDivisionError: division by zero\n')
    record = RunRecord(outcome=Outcome(status="failed", exit_code=1, exception_type="ZeroDivisionError",
                                       traceback=traceback, reason="the script failed with ZeroDivisionError"))
    annotated = nb_outcome.annotate_record(record, plan_notebook(nb))
    assert annotated.outcome.reason.startswith("the notebook failed in cell 3, line 1 with ZeroDivisionError")
    assert any("cell 1, line 1: !pip install timm" in n for n in annotated.notes)


def test_a_kernels_file_names_become_cells_in_the_record():
    kernel_file = "/tmp/ipykernel_99/123.py"
    cell = cell_filename("/work/nb.ipynb", "In[3]")
    record = RunRecord(
        hotspots=Hotspots(main=(FuncStat(file=kernel_file, line=4, function="check"), FuncStat(file="/lib/x.py"))),
        settings=Settings(dataloaders=(LoaderSettings(created_at=f"{kernel_file}:9"),)))
    out = relabel_cells(record, {kernel_file: cell})
    assert (out.hotspots.main[0].file, out.hotspots.main[0].user_code) == (cell, True)
    assert out.hotspots.main[1].file == "/lib/x.py"
    assert describe_site(out.settings.dataloaders[0].created_at) == "cell In[3], line 9"


def test_the_magics_options_are_the_command_lines(capsys):
    options = parse_options("-o runs/a --max-seconds 30 --full --warmup-steps 1 -q")
    assert (str(options["out"]), options["max_seconds"], options["full"], options["warmup_steps"], options["quiet"]) \
        == ("runs/a", 30.0, True, 1, True)
    assert parse_options("--max-seconds soon") is None
    assert "--max-seconds" in capsys.readouterr().err
    assert parse_options("--help") is None
    assert "--window" in capsys.readouterr().out


PROBE = """
import os, sys
print("RESULT", __name__, "__file__" in globals(), os.getcwd(), '' in sys.path, sys.argv[1:], shared,
      sys.modules["__main__"].__dict__ is globals(), "get_ipython" in dir(__builtins__) if isinstance(__builtins__, dict) else hasattr(__builtins__, "get_ipython"))
"""


def test_without_ipython_cells_run_as_plain_python_in_one_namespace(tmp_path):
    """The notebook's folder is the working folder and on sys.path, as in a kernel; skipped lines do not
    run; ``__name__`` is ``__main__`` and the cells share it."""
    folder = tmp_path / "course"
    folder.mkdir()
    nb = write_notebook(folder / "nb.ipynb", ["!pip install nothing-at-all\nshared = 41", "shared += 1", PROBE])
    code = ("import sys; sys.modules['IPython'] = None; sys.argv = [sys.argv[1], '--lr', '0.1']; "
            "from trainprobe.notebook.run import run_notebook; run_notebook(sys.argv[0])")
    proc = subprocess.run([sys.executable, "-c", code, str(nb)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT"))
    assert line == f"RESULT __main__ False {folder} True ['--lr', '0.1'] 42 True False"


def test_with_ipython_libraries_find_get_ipython_among_the_builtins(tmp_path):
    """In a kernel a cell and the libraries it calls see get_ipython() by its bare name, as fastcore and
    fastprogress look for it (test set 16's miniai notebook took fastprogress's console path without it)."""
    pytest.importorskip("IPython")
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "barlib.py").write_text(
        "def in_notebook():\n"
        "    try:\n"
        "        return 'InteractiveShell' in [c.__name__ for c in type(get_ipython()).__mro__]\n"
        "    except NameError:\n"
        "        return False\n"
        "AT_IMPORT = in_notebook()\n", encoding="utf-8")
    nb = write_notebook(folder / "nb.ipynb", ["import barlib", "print('RESULT', barlib.AT_IMPORT, barlib.in_notebook())"])
    code = "import sys; from trainprobe.notebook.run import run_notebook; run_notebook(sys.argv[1])"
    proc = subprocess.run([sys.executable, "-c", code, str(nb)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "RESULT True True" in proc.stdout.splitlines()


def test_the_miniai_notebook_runs_past_its_progress_bar():
    """Test set 16's course22p2 notebook, run again after the fix (a review): it failed in cell 9 when
    fastprogress took its console path; with get_ipython() among the builtins it trains, and the verdict is
    the expert's."""
    from recorded import RUNS_DIR, diagnosed
    record, diagnosis = diagnosed(RUNS_DIR / "real_test16" / "review" / "t16_fastai_miniai_resnet.cpu.run.json.gz")
    assert record.outcome.status == "stopped" and len(record.steps) >= 20
    assert diagnosis.verdict.category == "compute"


def test_the_inline_view_has_the_verdict_a_relative_link_and_no_colour(tmp_path, monkeypatch):
    from recorded import RUNS_DIR, diagnosed
    from trainprobe.api import DiagnoseResult
    from trainprobe.notebook.show import compact_html, compact_text

    record, diagnosis = diagnosed(RUNS_DIR / "imagefolder_main_process_decode.cpu.run.json")  # shared, cached
    (tmp_path / "runs" / "a").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    result = DiagnoseResult(record, tmp_path / "runs/a/run.json", diagnosis, tmp_path / "runs/a/report.html", {})
    page, text = compact_html(result), compact_text(result)
    assert "<b>Input-bound</b>: The training loop waits for data" in page
    assert '<a href="runs/a/report.html" target="_blank">Full report</a>' in page
    assert page.count("<li>") == 3 and "more in the report" not in page
    assert text.startswith("Input-bound: ") and "\x1b[" not in text + page


def _stopped_in(nb: Path, cell: int) -> BaseException:
    """trainprobe's stop raised inside a cell's code, as the notebook runner compiles it."""
    from trainprobe.notebook.cells import cell_filename
    from trainprobe.probe.stop import ProbeStop

    code = compile("def train():\n    raise ProbeStop('measured enough steps')\ntrain()\n",
                   cell_filename(str(nb), cell), "exec")
    try:
        exec(code, {"ProbeStop": ProbeStop})
    except ProbeStop as exc:
        return exc
    raise AssertionError("no stop")


def test_a_notebook_stopped_early_says_which_cells_never_ran_and_whether_they_train(tmp_path):
    """skorch's MNIST notebook (test set 4) trains an MLP, then a CNN with most of the training time; the
    probe measured the first fit and stopped the notebook there. The reader is told what did not run, and
    whether it trains."""
    from trainprobe.probe.unrun import left_unrun

    nb = write_notebook(tmp_path / "two_fits.ipynb", ["import torch", "net.fit(X, y)", "%time cnn.fit(X, y)",
                                                      "plot()"])
    assert left_unrun(_stopped_in(nb, 2)) == ("in cell 2 of 4: the 2 code cells after it did not run, and cell 3 "
                                              "trains again (fit(...)): this report is about the training "
                                              "measured first")
    assert left_unrun(_stopped_in(nb, 3)) == "in cell 3 of 4: the 1 code cell after it did not run (none of them trains)"
    three = write_notebook(tmp_path / "three_fits.ipynb", ["mlp.fit(X, y)", "X_tr, X_te = train_test_split(X)",
                                                           "cnn.fit(X_tr)", "%%time\nrnn.fit(X_tr)"])
    assert left_unrun(_stopped_in(three, 1)) == ("in cell 1 of 4: the 3 code cells after it did not run, and cells 3 "
                                                 "and 1 more train again (fit(...)): this report is about the "
                                                 "training measured first")
    assert left_unrun(_stopped_in(nb, 4)) is None  # the last cell: nothing left unrun
    unreadable = write_notebook(tmp_path / "odd.ipynb", ["import torch", "net.fit(X, y)", "def broken(:"])
    assert left_unrun(_stopped_in(unreadable, 2)) == ("in cell 2 of 3: the 1 code cell after it did not run, and "
                                                      "any training there was not measured")
    try:
        raise ValueError("a script's own frame, no cell")
    except ValueError as exc:
        assert left_unrun(exc) is None
