"""``trainprobe diagnose notebook.ipynb`` on real notebooks: magics and shell lines through IPython,
an ``if __name__`` guard, DataLoader workers under spawn, a failing cell, and the sample notebook.
Each run is short (small windows); what is checked is where things are said to be: in cells."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainprobe.api import diagnose
from trainprobe.notebook.cells import describe, describe_site
from trainprobe.probe.config import WindowPlan

from test_notebook_read import write_notebook

pytest.importorskip("IPython")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# Short windows with both profiles: enough steps for a verdict and a Python hotspot.
SHORT = WindowPlan(warmup_steps=2, steps=6, profile_min_steps=2, profile_seconds=0.1, cprofile_min_steps=4,
                   cprofile_seconds=0.3, max_seconds=60)

MAGICS = [
    "!pip install -q a-package-trainprobe-must-not-install\n%env TRAINPROBE_NOTEBOOK_TEST=on\n!echo shell line ran\n"
    "import os, sys, time\nimport torch\nfrom torch.utils.data import DataLoader, TensorDataset\ntorch.set_num_threads(1)",
    "model = torch.nn.Linear(32, 4)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "loader = DataLoader(TensorDataset(torch.randn(1024, 32), torch.randint(0, 4, (1024,))), batch_size=32)",
    "def busy(batch):\n    until = time.perf_counter() + 0.01\n    while time.perf_counter() < until:\n        pass\n"
    "    return batch",
    "%%time\nif __name__ == '__main__':\n    for epoch in range(20):\n        for x, y in loader:\n"
    "            loss = torch.nn.functional.cross_entropy(model(busy(x)), y)\n"
    "            opt.zero_grad()\n            loss.backward()\n            opt.step()",
    "print('env', os.environ.get('TRAINPROBE_NOTEBOOK_TEST'), sys.argv[1:])",
]


def test_magics_shell_lines_and_a_main_guard_run_and_findings_point_to_cells(tmp_path, capfd, monkeypatch):
    nb = write_notebook(tmp_path / "course.ipynb", MAGICS)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # IPython's shell must not make ~/.ipython there
    monkeypatch.delenv("IPYTHONDIR", raising=False)
    # trainprobe's own cache (compiled templates) is not the notebook's doing: kept out of the home looked at.
    # Run alone, this test was the first to render a report in its process, and the cache went there.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    result = diagnose([str(nb), "--epochs", "1"], out_dir=tmp_path / "out", plan=SHORT)
    record = result.record
    out = capfd.readouterr().out
    assert list(home.iterdir()) == []
    assert "shell line ran" in out and "env: TRAINPROBE_NOTEBOOK_TEST=on" in out
    assert record.outcome.status == "stopped", record.outcome
    assert any("cell 1, line 1: !pip install -q a-package-trainprobe-must-not-install" in n for n in record.notes)
    # the loop's DataLoader, created at line 4 of cell 4 (the %%time line is line 1)
    assert describe_site(record.settings.dataloaders[0].created_at) == "cell 4, line 4"
    hot = [f for f in record.hotspots.main if f.user_code and f.function == "busy"]
    assert hot and describe(hot[0].file, hot[0].line) == "cell 3, line 1"
    messages = " ".join(f.message for f in result.diagnosis.findings)
    assert "busy() in cell 3, line 1" in messages


SPAWN = [
    "import torch\nfrom torch.utils.data import DataLoader, Dataset\nfrom helpers import Noise\n"
    "model = torch.nn.Linear(16, 4)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)",
    "if __name__ == '__main__':\n"
    "    loader = DataLoader(Noise(), batch_size=16, num_workers=1, multiprocessing_context='spawn')\n"
    "    for x, y in loader:\n        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
    "        opt.zero_grad()\n        loss.backward()\n        opt.step()",
    "class InCell(Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n"
    "        return torch.zeros(16), 0\n\n"
    "for batch in DataLoader(InCell(), batch_size=4, num_workers=1, multiprocessing_context='spawn'):\n    pass",
    "print('never reached')",
]
HELPERS = """import torch
from torch.utils.data import Dataset


class Noise(Dataset):
    def __len__(self):
        return 480

    def __getitem__(self, i):
        return torch.randn(16), i % 4
"""


def test_spawned_workers_and_a_failing_cell_behave_as_in_jupyter(tmp_path, capfd):
    """Workers under spawn load a Dataset imported from a file beside the notebook (the notebook's folder
    is theirs too) and are measured; a Dataset defined in a cell cannot be unpickled by them, as in a
    Jupyter kernel, and that cell's failure is named, with what was measured before it kept."""
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "helpers.py").write_text(HELPERS)
    nb = write_notebook(folder / "spawn.ipynb", SPAWN)
    plan = WindowPlan(warmup_steps=2, steps=5, full=True, max_seconds=None, profiler=False, cprofile=False)
    result = diagnose([str(nb)], out_dir=tmp_path / "out", plan=plan)
    record = result.record
    captured = capfd.readouterr()
    assert "never reached" not in captured.out
    assert "Can't get attribute 'InCell'" in captured.err  # the worker's own error, as a kernel's terminal shows it
    assert record.outcome.status == "failed"
    assert record.outcome.reason.startswith("the notebook failed in cell 3, line 8 with RuntimeError")
    assert 'File "spawn.ipynb", cell 3, line 8' in record.outcome.traceback
    assert len(record.steps) == 30 and record.workers, "the steps and the spawned worker were measured"
    assert any("cannot load a Dataset" in n for n in record.notes)


def test_the_sample_notebook_is_host_bound_in_check_batch(tmp_path, monkeypatch):
    # One torch thread: on a busy 2-core machine two threads fighting other programs for the cores can
    # slow the model's math several times over, and the plant's share with it.
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    result = diagnose([str(ROOT / "sample_scripts" / "cifar_baseline.ipynb")], out_dir=tmp_path / "out",
                      plan=SHORT)
    record = result.record
    assert record.outcome.status == "stopped", record.outcome
    assert any("!pip install -q torch torchvision" in n for n in record.notes)
    finding = next(f for f in result.diagnosis.findings if f.id == "host-overhead-in-loop")
    assert "check_batch() in cell 5, line 1" in finding.message
