"""Where the script built its objects, where its loop is, and which framework runs it (probe/sites.py).

The frameworks are not installed for the tests: a framework's frames are made by running code whose
module name (``__name__``) is the framework's, which is all the detection reads; a framework's own
recorded runs are in test_frameworks.py.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from trainprobe.probe.sites import FlagBook, SiteBook, UserCode, called_site, detect_framework
from trainprobe.probe.sourcelines import calls_in_function, enclosing_function, enclosing_loop, first_call

SCRIPT = textwrap.dedent('''\
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 2)

    def build():
        return Net()

    def train(steps, on_step):
        config = TrainingArguments(output_dir="out")
        for step in range(steps):
            x = torch.randn(3, 4)
            y = torch.zeros(3, device="cpu")
            on_step()
    ''')


def _user_script(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT, encoding="utf-8")
    namespace = {"__name__": "__main__", "TrainingArguments": dict}
    exec(compile(SCRIPT, str(path), "exec"), namespace)  # noqa: S102  # the test's own script
    return path, namespace


def test_source_lines_found_with_ast(tmp_path):
    path, _ = _user_script(tmp_path)
    assert enclosing_loop(str(path), 16) == 13  # on_step() -> its for statement
    assert enclosing_loop(str(path), 9) is None  # not in a loop
    assert enclosing_function(str(path), 14) == (11, "train")
    assert first_call(str(path), ["TrainingArguments"]) == (12, "TrainingArguments")
    assert calls_in_function(str(path), 11, "train", {"randn", "zeros"}) == [(14, "randn", False),
                                                                            (15, "zeros", True)]
    assert enclosing_loop(str(tmp_path / "missing.py"), 3) is None  # unreadable: no line, no error


def test_a_model_is_built_where_the_users_line_calls_it(tmp_path):
    path, namespace = _user_script(tmp_path)
    book = SiteBook(UserCode((str(tmp_path),)))
    original = torch.nn.Module.__init__
    torch.nn.Module.__init__ = book.wrap_init(torch.nn.Module)
    try:
        model = namespace["build"]()
    finally:
        torch.nn.Module.__init__ = original
    # Net's own __init__ (its super().__init__()) is skipped: the line that built it is build()'s.
    assert book.of(model) == (f"{path}:9", None)
    # The Linear inside was built by Net.__init__, the user's code too.
    assert book.of(model.fc) == (f"{path}:6", None)


def _in_module(name: str, source: str, **names):
    """Functions whose frames belong to module ``name`` (a framework's, as far as the frames say)."""
    namespace = {"__name__": name, **names}
    exec(compile(textwrap.dedent(source), f"/site-packages/{name.replace('.', '/')}.py", "exec"), namespace)  # noqa: S102
    return namespace


def _main_file(path: Path, source: str) -> dict:
    """The user's own file ``path`` (run as __main__), written and executed: its functions' frames are user code."""
    path.write_text(source, encoding="utf-8")
    namespace = {"__name__": "__main__"}
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102
    return namespace


def test_the_framework_is_read_from_the_frames_of_the_loop(tmp_path):
    path, namespace = _user_script(tmp_path)
    seen = {}
    fit_loop = _in_module("lightning.pytorch.loops.fit_loop", """
        def run(train, seen):
            train(2, lambda: seen.update(frame=sys._getframe(0)))
        """, sys=sys)
    # The user's script calls the framework (trainer.fit()), which calls back into the user's code.
    main = tmp_path / "main.py"
    entry = _main_file(main, "def fit(run, train, seen):\n    run(train, seen)\n")
    entry["fit"](fit_loop["run"], namespace["train"], seen)
    info, loop_at = detect_framework(seen["frame"], UserCode((str(tmp_path),)))
    assert info.name == "lightning" and info.driver == "lightning.pytorch.loops.fit_loop"
    assert info.entry_at == f"{main}:2"
    assert loop_at == info.entry_at  # a framework's loop: the user's line that started it


def test_a_plain_loop_is_its_for_statement(tmp_path):
    path, namespace = _user_script(tmp_path)
    seen = {}
    namespace["train"](1, lambda: seen.update(frame=sys._getframe(1)))
    info, loop_at = detect_framework(seen["frame"], UserCode((str(tmp_path),)))
    assert info.name == "" and loop_at == f"{path}:13"


def test_accelerate_alone_is_accelerate_but_under_a_trainer_it_is_the_trainer(tmp_path):
    seen = {}
    step = _in_module("accelerate.optimizer", "def step(seen):\n    seen.update(frame=sys._getframe(0))\n", sys=sys)
    trainer = _in_module("transformers.trainer", "def train(step, seen):\n    step(seen)\n")
    step["step"](seen)
    assert detect_framework(seen["frame"], UserCode((str(tmp_path),)))[0].name == "accelerate"
    trainer["train"](step["step"], seen)
    assert detect_framework(seen["frame"], UserCode((str(tmp_path),)))[0].name == "transformers"


def test_a_loader_a_library_rebuilt_points_at_the_scripts_own_loader(tmp_path):
    """Opacus' make_private and accelerate's prepare make a new DataLoader from the script's: the settings
    to change (num_workers...) are on the script's DataLoader(...) line, not on the line that called the
    library. A loader the script builds itself, even over the same dataset, links to nothing."""
    from torch.utils.data import DataLoader, TensorDataset
    book = SiteBook(UserCode((str(tmp_path),)))
    library = _in_module("fakeprivacy.data_loader", """
        def make_private(loader):
            return DataLoader(loader.dataset, batch_size=loader.batch_size, num_workers=loader.num_workers)
        """, DataLoader=DataLoader)
    original = DataLoader.__init__
    DataLoader.__init__ = book.wrap_init(DataLoader, link=True)
    try:
        script = _main_file(tmp_path / "train.py", "def main(make_private, data):\n"
                                                   "    loader = DataLoader(data, batch_size=8)\n"
                                                   "    again = DataLoader(data, batch_size=4)\n"
                                                   "    return loader, again, make_private(loader)\n")
        script["DataLoader"] = DataLoader
        loader, again, private = script["main"](library["make_private"], TensorDataset(torch.zeros(16, 2)))
    finally:
        DataLoader.__init__ = original
    assert book.of(private) == (f"{tmp_path / 'train.py'}:4", "fakeprivacy.data_loader")
    assert book.rebuilt_from(private) == f"{tmp_path / 'train.py'}:2"
    assert book.rebuilt_from(loader) is None and book.rebuilt_from(again) is None


def test_a_loader_built_under_lightnings_init_wrapper_is_the_scripts_and_its_rebuild_links_to_it(tmp_path):
    """Lightning puts a wrapper in DataLoader.__init__'s place while it calls train_dataloader() (to save the
    arguments), then builds a new loader from them when it adds a sampler (strategy="ddp"). The script's
    DataLoader(...) line built the first: it is the script's loader, and the rebuilt one links to that line
    (torchx's Lightning example, test set 27: the finding named the hook's def line instead)."""
    import functools

    from torch.utils.data import DataLoader, TensorDataset
    book = SiteBook(UserCode((str(tmp_path),)))
    library = _in_module("lightning_fabric.utilities.data", """
        def wrap_init_method(init):
            @functools.wraps(init)
            def wrapper(obj, *args, **kwargs):
                obj.saved = (args, kwargs)
                init(obj, *args, **kwargs)
            return wrapper

        def request(hook):
            original = DataLoader.__init__
            DataLoader.__init__ = wrap_init_method(original)
            try:
                return hook()
            finally:
                DataLoader.__init__ = original

        def update_dataloader(loader):
            args, kwargs = loader.saved
            return DataLoader(*args, **{**kwargs, "shuffle": False})
        """, DataLoader=DataLoader, functools=functools)
    original = DataLoader.__init__
    DataLoader.__init__ = book.wrap_init(DataLoader, link=True)
    try:
        script = _main_file(tmp_path / "data.py", "def train_dataloader(data):\n"
                                                  "    return DataLoader(data, batch_size=8)\n")
        script["DataLoader"] = DataLoader
        data = TensorDataset(torch.zeros(16, 2))
        loader = library["request"](lambda: script["train_dataloader"](data))
        rebuilt = library["update_dataloader"](loader)
    finally:
        DataLoader.__init__ = original
    assert book.of(loader) == (f"{tmp_path / 'data.py'}:2", None)
    assert book.of(rebuilt)[1] == "lightning_fabric.utilities.data"
    assert book.rebuilt_from(rebuilt) == f"{tmp_path / 'data.py'}:2"


def test_a_library_without_a_table_that_runs_the_loop_is_named(tmp_path):
    """skorch's NeuralNet.fit, d2l's Trainer.fit: an installed package runs the loop and calls the step. It
    is named by its package (the advice is in its terms where the rules have a table for it, as skorch's
    have), the call that holds its settings is found in the user's file, and the loop's line is the
    user's call into it; a package that only wraps the step in a hand-made loop is not a loop."""
    seen = {}
    fit = _in_module("skorch.net", "def fit_loop(step, seen):\n    for _ in range(1):\n        step(seen)\n")
    step = _in_module("torch_optimizer.lamb", "def step(seen):\n    seen.update(frame=sys._getframe(0))\n", sys=sys)
    main = tmp_path / "main.py"
    entry = _main_file(main, "def main(fit_loop, step, seen):\n    fit_loop(step, seen)\n\n\n"
                             "def build(NeuralNetClassifier, Net):\n    return NeuralNetClassifier(Net, max_epochs=3)\n")
    entry["main"](fit["fit_loop"], step["step"], seen)
    info, loop_at = detect_framework(seen["frame"], UserCode((str(tmp_path),)))
    assert info.name == "skorch" and info.driver == "skorch.net" and info.entry_at == f"{main}:2"
    assert (info.config_call, info.config_at) == ("NeuralNetClassifier", f"{main}:6")
    assert loop_at == f"{main}:2"
    # The same step wrapper called from the user's own loop: plain PyTorch.
    loop = tmp_path / "loop.py"
    _main_file(loop, "def train(step, seen):\n    for _ in range(1):\n        step(seen)\n")["train"](step["step"], seen)
    info, loop_at = detect_framework(seen["frame"], UserCode((str(tmp_path),)))
    assert info.name == "" and loop_at == f"{loop}:2"


def test_monais_trainer_is_monai_not_the_ignite_engine_under_it(tmp_path):
    """MONAI's SupervisedTrainer subclasses Ignite's Engine: its frames are both, and its settings are MONAI's."""
    seen = {}
    step = _in_module("monai.engines.trainer", "def _iteration(seen):\n    seen.update(frame=sys._getframe(0))\n",
                      sys=sys)
    run = _in_module("ignite.engine.engine", "def run(iteration, seen):\n    for _ in range(1):\n        iteration(seen)\n")
    main = tmp_path / "main.py"
    entry = _main_file(main, "def main(run, iteration, seen):\n    run(iteration, seen)\n\n\n"
                             "def build(SupervisedTrainer):\n    return SupervisedTrainer(max_epochs=2)\n")
    entry["main"](run["run"], step["_iteration"], seen)
    info, _ = detect_framework(seen["frame"], UserCode((str(tmp_path),)))
    assert info.name == "monai" and (info.config_call, info.config_at) == ("SupervisedTrainer", f"{main}:6")


def test_timm_builds_the_loader_of_a_timm_script(tmp_path):
    path, namespace = _user_script(tmp_path)
    seen = {}
    namespace["train"](1, lambda: seen.update(frame=sys._getframe(1)))
    info, _ = detect_framework(seen["frame"], UserCode((str(tmp_path),)), ("timm.data.loader", None))
    assert info.name == "timm"


def test_the_scripts_command_line_options_are_noted():
    book = FlagBook()
    parser = argparse.ArgumentParser()
    parser.add_argument("-j", "--workers", type=int, default=4)
    parser.add_argument("--amp", action="store_true")
    original = argparse.ArgumentParser.parse_known_args
    argparse.ArgumentParser.parse_known_args = book.wrap(original)
    try:
        args = parser.parse_args(["--amp"])
    finally:
        argparse.ArgumentParser.parse_known_args = original
    assert args.amp is True and args.workers == 4  # parsed as without trainprobe
    flags = {f.dest: f for f in book.flags.values()}
    assert flags["workers"].options == ("-j", "--workers") and flags["workers"].value == "4"
    assert flags["amp"].value == "True" and "help" not in flags


def test_a_flags_fix_names_the_line_that_writes_its_default(tmp_path):
    """pytorch-flows (test set 28) declares --batch-size over five lines; its expert changes `default=100,` on the
    fourth, where the probe named the call's first line. An option declared on one line keeps that line; one with
    no default= keeps the call's line."""
    book = FlagBook(UserCode((str(tmp_path),)))
    script = _main_file(tmp_path / "main.py", textwrap.dedent("""\
        def parse(argparse, argv):
            parser = argparse.ArgumentParser()
            parser.add_argument(
                '--batch-size',
                type=int,
                default=100,
                help='input batch size')
            parser.add_argument('--lr', type=float, default=0.1)
            parser.add_argument(
                '--amp',
                action='store_true')
            return parser.parse_args(argv)
        """))
    originals = argparse._ActionsContainer.add_argument, argparse.ArgumentParser.parse_known_args
    argparse._ActionsContainer.add_argument = book.wrap_add(originals[0])
    argparse.ArgumentParser.parse_known_args = book.wrap(originals[1])
    try:
        args = script["parse"](argparse, ["--lr", "0.5"])
    finally:
        argparse._ActionsContainer.add_argument, argparse.ArgumentParser.parse_known_args = originals
    assert (args.batch_size, args.lr, args.amp) == (100, 0.5, False)
    flags = {f.dest: f for f in book.flags.values()}
    at = f"{tmp_path / 'main.py'}:"
    assert (flags["batch_size"].declared_at, flags["batch_size"].default_at) == (at + "3", at + "6")
    assert flags["lr"].default_at == at + "8"
    assert (flags["amp"].declared_at, flags["amp"].default_at) == (at + "9", None)


def test_a_notebooks_settings_call_is_found_in_an_earlier_cell(tmp_path):
    """skorch's MNIST notebook (test set 4) builds its net in cell 19 and fits it in cell 20: the advice names
    the NeuralNetClassifier(...) line of cell 19, not the fit."""
    import json
    from trainprobe.notebook.cells import cell_filename
    nb = tmp_path / "mnist.ipynb"
    cells = ["import torch", "%matplotlib inline\nnet = NeuralNetClassifier(\n    Net, max_epochs=3)", "net.fit(X, y)"]
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": [],
                                         "execution_count": None} for c in cells],
                              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    seen = {}
    fit = _in_module("skorch.net", "def fit_loop(step, seen):\n    for _ in range(1):\n        step(seen)\n")
    step = _in_module("torch_optimizer.lamb", "def step(seen):\n    seen.update(frame=sys._getframe(0))\n", sys=sys)
    namespace = {"fit_loop": fit["fit_loop"], "step": step["step"], "seen": seen}
    exec(compile("fit_loop(step, seen)", cell_filename(str(nb), 3), "exec"), namespace)  # noqa: S102
    info, _ = detect_framework(seen["frame"], UserCode((str(tmp_path),)))
    assert info.name == "skorch" and info.entry_at == f"{cell_filename(str(nb), 3)}:1"
    assert (info.config_call, info.config_at) == ("NeuralNetClassifier", f"{cell_filename(str(nb), 2)}:2")


def test_a_call_is_placed_at_the_scripts_line_through_library_frames():
    """The training forward's caller, for autocast's line: library frames (compiled here under another file
    name) between the hook and the script are skipped; with no frame of the script's, no line."""
    library = {}
    exec(compile("def forward(look):\n    return look(sys._getframe(0))\n", "/usr/lib/some_library.py", "exec"),
         {"sys": sys}, library)
    here = __file__
    placed = library["forward"](lambda frame: called_site(frame, lambda path: path == here))
    assert placed.startswith(f"{here}:") and int(placed.rsplit(":", 1)[1]) == sys._getframe(0).f_lineno - 1
    assert library["forward"](lambda frame: called_site(frame, lambda path: False)) == ""


@pytest.mark.slow  # one real run: ~8 s
def test_a_model_reached_through_the_scripts_helpers_is_wrapped_at_the_loops_line(tmp_path):
    """nerf-pytorch (test set 16) and hkproj's transformer (set 15) call their model through helpers of their own:
    the expert wraps the loop's call (render(...), model.encode(...)) in autocast, where the probe named the
    innermost helper's model(...) line. forward_at, and the bf16 fix's line, is now the loop's."""
    from probe_helpers import ONE_RUN, SCRIPTS, diagnose
    from trainprobe.facts import compute_facts, facts_by_name

    script = SCRIPTS / "helper_forward.py"
    proc, record = diagnose(tmp_path / "out", *ONE_RUN, str(script))
    assert proc.returncode == 0, proc.stderr
    lines = script.read_text(encoding="utf-8").splitlines()
    facts = facts_by_name(compute_facts(record))
    model = max(record.settings.models, key=lambda m: m.train_calls)
    assert "model(points[i:i + chunk])" in lines[int(model.train_called_at.rsplit(":", 1)[1]) - 1]  # innermost
    assert lines[int(facts["forward_at"].rsplit(":", 1)[1]) - 1].strip() == "colour = render(model, rays)"
    assert lines[int(facts["loop_at"].rsplit(":", 1)[1]) - 1].strip().startswith("for step in range(")


def test_nerf_pytorchs_bf16_fix_is_at_its_loops_render_call():
    """Test set 16's nerf-pytorch run again at 3e0abf5 (a review, not the held-out record): the bf16 fix names
    run_nerf.py:760, the loop's render(...) call the expert wraps, not batchify's model(...) at run_nerf.py:33."""
    import recorded
    record, diagnosis = recorded.diagnosed(recorded.RUNS_DIR / "real_test16" / "review" / "t16_nerf_lego.cpu.run.json.gz")
    bf16 = next(f for f in diagnosis.findings if f.id == "cpu-bf16-not-used")
    assert bf16.changes_at == "run_nerf.py:760"
    assert max(record.settings.models, key=lambda m: m.train_calls).train_called_at.endswith("run_nerf.py:33")


def test_a_name_is_looked_up_in_the_cell_then_the_earlier_cells_last_first():
    """One walk serves every reader of a notebook's earlier cells (a batch variable's literal, the line that
    built a library's object, a settings call): nearest first, and a plain file or a live cell alone."""
    from trainprobe.notebook.cells import cell_filename, cells_back
    nb = "/x/train.ipynb"
    assert list(cells_back(cell_filename(nb, 3))) == [cell_filename(nb, 3), cell_filename(nb, 2), cell_filename(nb, 1)]
    assert list(cells_back(cell_filename(nb, 1))) == [cell_filename(nb, 1)]
    assert list(cells_back(cell_filename(nb, "In[7]"))) == [cell_filename(nb, "In[7]")]
    assert list(cells_back("/x/train.py")) == ["/x/train.py"]


def test_a_frame_that_keeps_its_locals_is_not_read():
    """Before Python 3.13 reading f_locals writes every local back into the dict the function's own locals()
    returned; a function that calls locals() is left alone, by frame_local and frame_locals alike."""
    from trainprobe.probe.sites import frame_local, frame_locals
    seen = {}

    def keeps_locals():
        batch_size = 32
        mine = locals()
        mine.pop("batch_size")
        seen["frame"] = sys._getframe(0)
        seen["mine"] = mine

    def plain():
        batch_size = 32  # noqa: F841  # read through the frame
        seen["plain"] = sys._getframe(0)

    keeps_locals()
    plain()
    assert frame_local(seen["plain"], "batch_size") == 32 and frame_locals(seen["plain"])["batch_size"] == 32
    if sys.version_info < (3, 13):
        assert frame_local(seen["frame"], "batch_size") is None and frame_locals(seen["frame"]) == {}
        assert "batch_size" not in seen["mine"]
