"""A library builds the DataLoader from an argument of the function the script called (scvi-tools'
``model.train(batch_size=128)``, test set 23): the batch-size fix is that argument, at the script's line.

Real frames of a real module in a folder named site-packages (where libraries live), run under the probe."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

from probe_helpers import diagnose
from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.notebook.cells import cell_filename
from trainprobe.probe.sites import LibraryArgument, UserCode, library_argument

_LIBRARY = '''
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


class _Splitter:
    on_made = None  # a test's look at the live frames while the library builds the loader

    def __init__(self, data, loader_kwargs):
        self.data, self.loader_kwargs = data, loader_kwargs
        if _Splitter.on_made is not None:
            _Splitter.on_made(sys._getframe(1))

    def train_dataloader(self):
        return DataLoader(TensorDataset(self.data), shuffle=True, **self.loader_kwargs)


class CellModel(torch.nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(32, width), torch.nn.ReLU(), torch.nn.Linear(width, 32))

    def train_model(self, data, epochs=1, batch_size=128, lr=1e-3):
        # The argument travels inside the library, as scvi's does through its DataSplitter.
        loader = _Splitter(data, {"batch_size": batch_size}).train_dataloader()
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        for _ in range(epochs):
            for (batch,) in loader:
                loss = torch.nn.functional.mse_loss(self.net(batch), batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
'''

_SCRIPT = '''
import torch
import celllib

model = celllib.CellModel()
model.train_model(torch.randn(8192, 32), epochs=2, batch_size=32)
'''


def _installed(tmp_path: Path) -> tuple[Path, Path]:
    library = tmp_path / "site-packages" / "celllib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text(_LIBRARY)
    script = tmp_path / "user" / "fit_cells.py"
    script.parent.mkdir()
    script.write_text(_SCRIPT)
    return library.parent, script


def test_the_argument_is_found_only_on_the_function_the_script_called(tmp_path):
    """From the frame that built the loader outward: the function whose caller is the script's own code, when
    its argument holds the loader's batch size; not with another value, nor where the script built it itself."""
    import torch

    folder, script = _installed(tmp_path)
    sys.path.insert(0, str(folder))
    try:
        import celllib  # the library's real module, in a folder named site-packages
        is_user = UserCode((str(script.parent),))
        seen = {}
        celllib._Splitter.on_made = lambda frame: seen.update(
            found=library_argument(frame, 48, is_user), other=library_argument(frame, 64, is_user))
        # A function compiled from the script's file: its frames are the user's code.
        namespace: dict = {}
        exec(compile("def run(model, data):\n    model.train_model(data, batch_size=48)\n", str(script), "exec"),
             namespace)
        namespace["run"](celllib.CellModel(), torch.randn(96, 32))
        assert seen == {"found": LibraryArgument("train_model", "batch_size"), "other": None}
        own = UserCode((os.path.dirname(os.path.abspath(__file__)),))
        assert library_argument(sys._getframe(), 48, own) is None  # the script's own frame built it
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("celllib", None)


# A library whose model takes the batch size in its constructor and builds the loader in fit(), choosing the
# size itself when none was given (neural_prophet's NeuralProphet(batch_size=None) then m.fit(df), test set 24;
# skorch's NeuralNet(batch_size=128).fit(X, y)); its subclass passes keyword arguments through to the base.
_FORECAST_LIBRARY = '''
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset


class Forecaster:
    on_made = None

    def __init__(self, epochs=1, batch_size=None, learning_rate=1e-3):
        self.epochs, self.batch_size, self.learning_rate = epochs, batch_size, learning_rate

    def fit(self, data, batch_size=None):
        size = batch_size or self.batch_size or min(32, len(data))  # "auto", as neural_prophet's rule does
        loader = DataLoader(TensorDataset(data), batch_size=size, shuffle=True)
        if Forecaster.on_made is not None:
            Forecaster.on_made(sys._getframe(), size)
        return loader


class Seasonal(Forecaster):
    def __init__(self, seasons=7, **kwargs):
        super().__init__(**kwargs)
        self.seasons = seasons


class Fixed:
    """A model whose constructor takes no batch size: no knob to name."""

    def fit(self, data):
        return Forecaster.fit(Forecaster(), data)
'''


def _forecast_library(tmp_path: Path):
    library = tmp_path / "site-packages" / "forecastlib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text(_FORECAST_LIBRARY)
    sys.path.insert(0, str(library.parent))
    import forecastlib  # the library's real module, in a folder named site-packages
    return forecastlib


def test_a_method_that_left_the_batch_size_to_its_object_names_the_constructor_at_the_line_that_built_it(tmp_path):
    import torch

    user = tmp_path / "user"
    user.mkdir()
    script = user / "forecast.py"
    source = ("import forecastlib\n"
              "import torch\n"
              "m = forecastlib.Seasonal(epochs=3)\n"
              "print('built')\n"
              "m.fit(torch.randn(100, 4))\n"
              "fixed = forecastlib.Fixed()\n"
              "fixed.fit(torch.randn(100, 4))\n"
              "given = forecastlib.Seasonal()\n"
              "given.fit(torch.randn(100, 4), batch_size=16)\n")
    script.write_text(source)
    try:
        lib = _forecast_library(tmp_path)
        seen = []
        lib.Forecaster.on_made = lambda frame, size: seen.append(library_argument(frame, size, UserCode((str(user),))))
        exec(compile(source, str(script), "exec"), {"__name__": "__main__"})
        assert seen == [LibraryArgument("Seasonal", "batch_size", f"{script}:3"),  # through **kwargs, at m = ...
                        None,  # Fixed() takes no batch size
                        LibraryArgument("fit", "batch_size")]  # the method's own argument, given at the call
    finally:
        sys.path.remove(str(tmp_path / "site-packages"))
        sys.modules.pop("forecastlib", None)


def test_the_constructor_is_found_in_an_earlier_notebook_cell(tmp_path):
    """A notebook builds the model in one cell and fits it in the next: the line is the earlier cell's."""
    import json

    import torch

    notebook = tmp_path / "user" / "tutorial.ipynb"
    notebook.parent.mkdir()
    cells = ["import forecastlib\nimport torch", "data = torch.randn(64, 4)\nm = forecastlib.Forecaster()", "m.fit(data)"]
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                               "source": text} for text in cells],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    try:
        lib = _forecast_library(tmp_path)
        seen = []
        lib.Forecaster.on_made = lambda frame, size: seen.append(
            library_argument(frame, size, UserCode((str(notebook.parent),))))
        namespace: dict = {"__name__": "__main__"}
        for number, text in enumerate(cells, start=1):
            exec(compile(text, cell_filename(str(notebook), number), "exec"), namespace)
        assert seen == [LibraryArgument("Forecaster", "batch_size", f"{cell_filename(str(notebook), 2)}:2")]
    finally:
        sys.path.remove(str(tmp_path / "site-packages"))
        sys.modules.pop("forecastlib", None)


def test_small_batch_overhead_gives_the_constructors_argument_at_the_line_that_built_the_object():
    from rule_cases.cases import _tiny_batch_cpu
    from rule_cases.records import with_loader
    from trainprobe.engine import apply_rules

    record = with_loader(_tiny_batch_cpu(4), built_at="forecast.py:5", built_by="forecastlib",
                         batch_call="Seasonal", batch_param="batch_size", batch_call_at="forecast.py:3")
    finding = next(f for f in apply_rules(record).findings if f.id == "small-batch-overhead")
    assert finding.framework == "library" and finding.changes_at.endswith("forecast.py:3")
    assert "to Seasonal(...) at forecast.py:3 (now 4)" in finding.advice


@pytest.mark.slow
def test_the_batch_size_fix_is_the_librarys_argument_at_the_scripts_line(tmp_path):
    folder, script = _installed(tmp_path)
    env = {"PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    proc, record = diagnose(tmp_path / "out", "--full", "--warmup-steps", "2", "--steps", "20", str(script),
                            env=env, cwd=script.parent)
    assert proc.returncode == 0, proc.stderr
    loader = next(l for l in record.settings.dataloaders if l.used_in_training)
    assert (loader.batch_call, loader.batch_param) == ("train_model", "batch_size")
    values = facts_by_name(compute_facts(record))
    assert values["loader_at"].endswith("fit_cells.py:6")
    assert (values["loader_batch_call"], values["loader_batch_param"]) == ("train_model", "batch_size")


def test_small_batch_overhead_gives_the_librarys_argument_at_the_scripts_line():
    """The rule's [framework.library] table, on a record of tiny batches whose loader a library built from the
    argument of the function the script called (its timings fixed, as the probe's clock would give them: a live
    run's fixed share swings with the machine's load)."""
    from rule_cases.cases import _tiny_batch_cpu
    from rule_cases.records import with_loader
    from trainprobe.engine import apply_rules

    record = with_loader(_tiny_batch_cpu(4), built_at="fit_cells.py:6", built_by="celllib",
                         batch_call="train_model", batch_param="batch_size")
    finding = next(f for f in apply_rules(record).findings if f.id == "small-batch-overhead")
    assert finding.framework == "library" and finding.changes_at.endswith("fit_cells.py:6")
    assert finding.advice.startswith("Use larger batches: pass batch_size=") and "to train_model(...) at" in finding.advice
    assert finding.snippet.strip().startswith("train_model(..., batch_size=")
    plain = next(f for f in apply_rules(_tiny_batch_cpu(4)).findings if f.id == "small-batch-overhead")
    assert plain.framework != "library" and "train_model" not in plain.advice


def test_scvi_tools_batch_size_is_its_train_argument_at_the_notebooks_line():
    """scvi-tools' API overview (test set 23, run again with the code of the commit that adds this test, a later
    review): model.train(...) builds an AnnDataLoader whose BatchSampler is its sampler (the loader's own
    batch_size is None), and Lightning builds the loader again around it. Its expert's fix:
    model.train(..., batch_size=512 or 1024) at code cell 12, line 1."""
    from recorded import diagnosed

    record, diagnosis = diagnosed(Path(__file__).parent / "data" / "runs" / "real_test23" / "review"
                                  / "t23_scvi_api_overview.cpu.run.json.gz")
    loader = next(l for l in record.settings.dataloaders if l.used_in_training)
    assert loader.batch_size is None and (loader.batch_call, loader.batch_param) == ("train", "batch_size")
    finding = next(f for f in diagnosis.findings if f.id == "small-batch-overhead")
    assert finding.framework == "library" and finding.changes_at == "cell 12, line 1"
    assert "pass batch_size=256 to train(...) at cell 12, line 1 (now 128)" in finding.advice


def test_the_report_says_whose_terms_the_fix_is_in():
    """The report's "Fix at ... (whose terms)": for a library's argument, that it is one, not "library"."""
    import html as htmllib

    from recorded import diagnosed
    from trainprobe.report import render_html

    page = htmllib.unescape(render_html(*diagnosed(Path(__file__).parent / "data" / "runs" / "real_test23" / "review"
                                                   / "t23_scvi_api_overview.cpu.run.json.gz")))
    assert "(an argument the script passes to the library)</span>:" in page
    assert "pass batch_size=256 to train(...) at cell 12, line 1" in page


# A library whose model takes its optimizer's keyword arguments through **kwargs and documents them (darts'
# NBEATSModel(optimizer_kwargs=...): test set 25, whose expert's fix was fused=True there), and builds the optimizer
# in fit(); a function of the library that takes them itself; a model that does not document them.
_OPTIMIZER_LIBRARY = '''
import sys

import torch


class Forecast:
    """A forecasting model.

    Parameters
    ----------
    optimizer_kwargs
        The keyword arguments of its torch optimizer.
    """
    on_built = None

    def __init__(self, width=8, **kwargs):
        self.net = torch.nn.Linear(width, width)
        self.kwargs = kwargs

    def fit(self):
        optimizer = torch.optim.Adam(self.net.parameters(), **(self.kwargs.get("optimizer_kwargs") or {}))
        Forecast.on_built(optimizer)


class Undocumented(Forecast):
    """A model that hands its keyword arguments on without naming them."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)


def train(model, optimizer_kwargs=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, **(optimizer_kwargs or {}))
    Forecast.on_built(optimizer)
'''


def test_an_optimizer_a_library_built_names_the_argument_the_script_passes_its_settings_through(tmp_path):
    import torch

    from trainprobe.probe.sites import OPTIMIZER_ARGUMENTS, SiteBook, library_setting

    library = tmp_path / "site-packages" / "optimlib"
    library.mkdir(parents=True)
    (library / "__init__.py").write_text(_OPTIMIZER_LIBRARY)
    user = tmp_path / "user"
    user.mkdir()
    script = user / "forecast.py"
    source = ("import optimlib\n"
              "import torch\n"
              "model = optimlib.Forecast(width=4)\n"
              "model.fit()\n"
              "other = optimlib.Undocumented()\n"
              "other.fit()\n"
              "optimlib.train(torch.nn.Linear(2, 2))\n")
    script.write_text(source)
    sys.path.insert(0, str(library.parent))
    book = SiteBook(UserCode((str(user),)))
    original = torch.optim.Optimizer.__init__
    torch.optim.Optimizer.__init__ = book.wrap_init(torch.optim.Optimizer, optimizer=True)
    try:
        import optimlib

        seen = []
        optimlib.Forecast.on_built = lambda optimizer: seen.append(book.library_argument(optimizer))
        exec(compile(source, str(script), "exec"), {"__name__": "__main__"})
        assert seen == [LibraryArgument("Forecast", "optimizer_kwargs", f"{script}:3"),  # documented, at model = ...
                        None,  # Undocumented() does not name it
                        LibraryArgument("train", "optimizer_kwargs")]  # the function's own argument
        assert library_setting(sys._getframe(), UserCode((os.path.dirname(os.path.abspath(__file__)),)),
                               OPTIMIZER_ARGUMENTS) is None  # the script's own frame built it
        # Each fit() dropped its optimizer; what was noted for it goes with it, or the next optimizer built at
        # the freed address would read as that one (Undocumented's read as Forecast's in one full run).
        gc.collect()
        assert book._library_arguments == {}  # pylint: disable=protected-access
    finally:
        torch.optim.Optimizer.__init__ = original
        sys.path.remove(str(library.parent))
        sys.modules.pop("optimlib", None)


def test_optimizer_share_high_gives_the_fused_optimizer_through_the_librarys_argument_at_its_line():
    from rule_cases.cases import CASES
    from rule_cases.records import with_optimizer
    from trainprobe.engine import apply_rules

    record = with_optimizer(CASES["optimizer-share-high"].bad(), built_at="forecast.py:4", built_by="optimlib",
                            library_call="NBEATSModel", library_param="optimizer_kwargs", library_at="forecast.py:3")
    finding = next(f for f in apply_rules(record).findings if f.id == "optimizer-share-high")
    assert finding.framework == "library" and finding.changes_at == "forecast.py:3"
    assert 'pass optimizer_kwargs={"lr": ' in finding.advice and '"fused": True} to NBEATSModel(...) at forecast.py:3' \
        in finding.advice
    plain = next(f for f in apply_rules(CASES["optimizer-share-high"].bad()).findings if f.id == "optimizer-share-high")
    assert plain.framework != "library" and "NBEATSModel" not in plain.advice


def test_darts_fused_adam_is_its_models_optimizer_kwargs_at_the_cell_that_builds_it():
    """darts' N-BEATS notebook (test set 25, run again after its scoring with the code of the commit that adds this
    test, a later review): model.fit() builds Adam inside Lightning from NBEATSModel's optimizer_kwargs, which the
    model takes through **kwargs and documents. Its expert's fix: NBEATSModel(..., optimizer_kwargs={"lr": 1e-3,
    "fused": True}) at the cell that builds the model (code cell 6 from 0, trainprobe's cell 7)."""
    from recorded import diagnosed

    record, diagnosis = diagnosed(Path(__file__).parent / "data" / "runs" / "real_test25" / "review"
                                  / "t25_darts_nbeats.cpu.run.json.gz")
    optimizer = record.settings.optimizers[0]
    assert (optimizer.library_call, optimizer.library_param) == ("NBEATSModel", "optimizer_kwargs")
    finding = next(f for f in diagnosis.findings if f.id == "optimizer-share-high")
    assert finding.framework == "library" and finding.changes_at == "cell 7, line 2"
    assert 'pass optimizer_kwargs={"lr": 0.001, "fused": True} to NBEATSModel(...) at cell 7, line 2' in finding.advice


def test_neural_prophets_batch_fix_is_its_constructors_argument_at_its_experts_line():
    """Test set 24's neural_prophet tutorial run again (a later review, not the held-out figure): m.fit(df) after
    m = NeuralProphet() left the batch to the object; the fix is the constructor's argument at code cell 2, line 8,
    its expert's line, and it is named as the largest estimated gain under the launch lead."""
    from recorded import diagnosed
    from trainprobe.engine import larger_lever_below

    record, diagnosis = diagnosed(Path(__file__).parent / "data" / "runs" / "real_test24" / "review"
                                  / "t24_neuralprophet_tutorial01.cpu.run.json.gz")
    loader = next(l for l in record.settings.dataloaders if l.used_in_training)
    assert (loader.batch_call, loader.batch_param) == ("NeuralProphet", "batch_size")
    finding = next(f for f in diagnosis.findings if f.id == "small-batch-overhead")
    assert finding.framework == "library" and finding.changes_at == "cell 2, line 8"
    assert "pass batch_size=256 to NeuralProphet(...) at cell 2, line 8 (now 32)" in finding.advice
    assert larger_lever_below(list(diagnosis.findings))[1] is finding
