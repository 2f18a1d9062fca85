"""``%%trainprobe`` and ``trainprobe.measure()`` in a real Jupyter kernel, run headless with nbclient.

One kernel runs one notebook: load the extension, train under the magic, check in the kernel that
nothing stayed patched, train the same way again unprobed, probe a block with the context manager,
and let a probed cell fail. The checks read the cells' outputs and the folders the runs left.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

pytestmark = pytest.mark.slow

SETUP = """
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.nn.modules import module as nn_module
from torch.optim import optimizer as optim_module

model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loader = DataLoader(TensorDataset(torch.randn(2048, 32), torch.randint(0, 4, (2048,))), batch_size=32)
ORIGINALS = {name: obj for name, obj in [
    ("DataLoader.__iter__", DataLoader.__iter__), ("backward", torch.autograd.backward),
    ("Module.__getstate__", torch.nn.Module.__getstate__), ("Module.zero_grad", torch.nn.Module.zero_grad),
    ("Optimizer.zero_grad", torch.optim.Optimizer.zero_grad), ("compile", torch.compile)]}

def hooks_left():
    current = {"DataLoader.__iter__": DataLoader.__iter__, "backward": torch.autograd.backward,
               "Module.__getstate__": torch.nn.Module.__getstate__, "Module.zero_grad": torch.nn.Module.zero_grad,
               "Optimizer.zero_grad": torch.optim.Optimizer.zero_grad, "compile": torch.compile}
    patched = sorted(name for name, obj in current.items() if obj is not ORIGINALS[name])
    hooks = (len(nn_module._global_forward_hooks) + len(nn_module._global_forward_pre_hooks)
             + len(optim_module._global_optimizer_pre_hooks) + len(optim_module._global_optimizer_post_hooks)
             + sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules()))
    return patched, hooks

def train(epochs):
    steps = 0
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
    return steps
"""

FAST = "--warmup-steps 2 --steps 5 --window 0.2"

CELLS = [
    "%load_ext trainprobe",
    SETUP,
    f"%%trainprobe -o probed {FAST}\nsteps = train(50)\nsteps",
    "print('AFTER', json.dumps({'left': hooks_left(), 'momentum': len(opt.state), "
    "'finite': bool(all(torch.isfinite(p).all() for p in model.parameters()))}))",
    # The same training again, unprobed: it runs to its end and nothing of the probe comes back.
    "steps = train(1)\nprint('AGAIN', json.dumps({'steps': steps, 'left': hooks_left()}))",
    "import trainprobe\n"
    f"with trainprobe.measure('block', warmup_steps=2, steps=5, window=0.2, profile=False) as run:\n"
    "    train(50)\n"
    "print('BLOCK', json.dumps({'status': run.result.record.outcome.status, 'left': hooks_left()}))",
    "%%trainprobe -o failed --no-profile\nraise ValueError('the cell broke')",
    "import os\nprint('FILES', json.dumps(sorted(os.listdir('.'))))",
]


def _run(folder: Path) -> list:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import json")] + [nbformat.v4.new_code_cell(c) for c in CELLS]
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    return nb.cells[1:]


def _printed(cell, tag: str):
    for output in cell.outputs:
        for line in output.get("text", "").splitlines():
            if line.startswith(tag + " "):
                return json.loads(line[len(tag) + 1:])
    raise AssertionError(f"no {tag} line in {cell.outputs}")


@pytest.fixture(scope="module")
def kernel_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kernel")
    return folder, _run(folder)


def test_the_magic_shows_the_verdict_and_a_link_in_the_cells_output(kernel_run):
    folder, cells = kernel_run
    outputs = cells[2].outputs
    texts = [o["data"].get("text/plain", "") for o in outputs if o["output_type"] == "display_data"]
    progress = [t for t in texts if t.startswith("trainprobe:")]
    assert len(progress) == 1 and progress[0].startswith("trainprobe: done in")  # one line, updated in place
    summary = next(o["data"] for o in outputs if "text/html" in o.get("data", {}))
    assert re.search(r"(Compute|Input|Host|Launch|Sync|Copy|Memory)-bound: ", summary["text/plain"])
    assert 'href="probed/report.html"' in summary["text/html"]
    assert (folder / "probed" / "report.html").exists()
    assert "\x1b[" not in json.dumps([o for c in cells for o in c.outputs])  # no colours anywhere
    record = json.loads((folder / "probed" / "run.json").read_text())
    assert record["outcome"]["status"] == "stopped" and len(record["steps"]) >= 7
    created = record["settings"]["dataloaders"][0]["created_at"]
    assert re.search(r"#cell-In\[\d+\]:\d+$", created), created  # the loop's line, named by its cell
    assert record["samples"]["processes"], "the helper process sampled the kernel"
    assert all("trainprobe.notebook.watch" not in p["cmdline"] for p in record["samples"]["processes"])
    assert not [o for o in outputs if o["output_type"] == "error"]


def test_nothing_stays_patched_and_the_cells_state_stays_usable(kernel_run):
    folder, cells = kernel_run
    after = _printed(cells[3], "AFTER")
    assert after == {"left": [[], 0], "momentum": 4, "finite": True}
    again = _printed(cells[4], "AGAIN")
    assert again == {"steps": 64, "left": [[], 0]}  # a whole epoch, unprobed
    assert not (folder / "probed" / "workers").exists()


def test_the_context_manager_probes_a_block_and_goes_on_after_it(kernel_run):
    folder, cells = kernel_run
    assert _printed(cells[5], "BLOCK") == {"status": "stopped", "left": [[], 0]}
    assert json.loads((folder / "block" / "run.json").read_text())["outcome"]["status"] == "stopped"


def test_a_failing_cell_raises_its_error_after_the_report(kernel_run):
    folder, cells = kernel_run
    errors = [o for o in cells[6].outputs if o["output_type"] == "error"]
    assert errors and errors[0]["ename"] == "ValueError"
    record = json.loads((folder / "failed" / "run.json").read_text())
    assert record["outcome"]["status"] == "failed"
    assert "cell In[" in record["outcome"]["traceback"] or "#cell-In[" in record["outcome"]["traceback"]


def test_no_file_is_written_outside_the_output_folders(kernel_run):
    folder, cells = kernel_run
    assert _printed(cells[7], "FILES") == ["block", "failed", "probed"]
    assert sorted(os.listdir(folder)) == ["block", "failed", "probed"]
