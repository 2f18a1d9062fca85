"""The main process's profile read as a call graph (probe/callgraph.py): phases, parts summed by caller.

Each test profiles a small real program with cProfile, as the probe's window does (opened while the
loop runs, so the loop's own frame is not in the profile), with its files laid out as on a user's
machine: the script in its folder, libraries under site-packages.
"""

from __future__ import annotations

import cProfile
import importlib
import pstats
import sys
import textwrap
from pathlib import Path

import pytest

from trainprobe.probe.callgraph import analyze
from trainprobe.probe.hotspots import categorize
from trainprobe.probe.sites import UserCode

BURN = "def burn(n):\n    total = 0\n    for i in range(n):\n        total += i * i\n    return total\n"

LIBRARIES = {
    "fakebar/__init__.py": BURN + "class Bar:\n    def set_postfix(self, n):\n        return burn(n)\n",
    "tokenizers/__init__.py": BURN + "def encode(text):\n    burn(3000)\n    return [len(w) for w in text.split()]\n",
    "lightning/__init__.py": "",
    "lightning/pytorch/__init__.py": "",
    "lightning/pytorch/core/__init__.py": "",
    "lightning/pytorch/core/module.py": BURN + "def log(name, value):\n    return burn(20000)\n",
    "lightning/pytorch/loops/__init__.py": "",
    "lightning/pytorch/loops/fit_loop.py": BURN + textwrap.dedent('''\
        def advance(module, batch):
            burn(2000)
            return module.training_step(batch)
        '''),
}

SCRIPT = textwrap.dedent('''\
    import torch
    from torch.utils.data import DataLoader, Dataset
    from fakebar import Bar, burn
    from tokenizers import encode


    class Texts(Dataset):
        def __len__(self):
            return 1000

        def __getitem__(self, i):
            ids = encode("a few words of text " * 20)
            return torch.tensor(ids[:8], dtype=torch.float32)


    def add_noise(x):
        return x + 0.01


    def step(model, x, bar):
        y = model(add_noise(x))
        bar.set_postfix(40000)
        burn(20000)
        return y


    def crunch(n):
        total = 0
        for i in range(n):
            total += i % 7
        return len(str(total))


    def plain_loop(model, steps, window, spread):
        loader, bar = iter(DataLoader(Texts(), batch_size=4)), Bar()
        for i in range(steps):
            if i == 1:
                window.enable()
            x = next(loader)
            noise = torch.randn(4, 8)
            if spread == "own":
                crunch(60000)
            elif spread:
                model(add_noise(x + noise))
                bar.set_postfix(20000)
                burn(20000)
            else:
                step(model, x + noise, bar)
        window.disable()


    class Module(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def training_step(self, batch):
            from lightning.pytorch.core.module import log
            y = self.fc(batch).sum()
            log("loss", y)
            return y
    ''')


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    root = tmp_path_factory.mktemp("callgraph")
    packages = root / "site-packages"
    for name, text in LIBRARIES.items():
        path = packages / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    project = root / "project"
    project.mkdir()
    (project / "train.py").write_text(SCRIPT, encoding="utf-8")
    sys.path[:0] = [str(packages), str(project)]
    try:
        yield {name: importlib.import_module(name) for name in ("train", "lightning.pytorch.loops.fit_loop")}, \
            UserCode((str(project),))
    finally:
        sys.path[:2] = []
        for name in [n for n in sys.modules if n.split(".")[0] in ("train", "fakebar", "tokenizers", "lightning")]:
            del sys.modules[name]


def _line(text: str) -> int:
    """The script's line that holds ``text``."""
    return next(i for i, line in enumerate(SCRIPT.splitlines(), 1) if text in line)


def _profile(run) -> tuple[dict, float]:
    import time

    window = cProfile.Profile()
    start = time.perf_counter()
    run(window)
    wall = time.perf_counter() - start
    return pstats.Stats(window).stats, wall


def _plain(program, spread):
    modules, is_user = program
    train = modules["train"]
    model = train.torch.nn.Linear(8, 8)
    table, wall = _profile(lambda window: train.plain_loop(model, 12, window, spread))
    return analyze(table, wall, is_user, "", f"{train.__file__}:{_line('for i in range(steps)')}", categorize), train


def test_phases_follow_the_step_clock(program):
    result, _ = _plain(program, spread=True)
    phases = result.phase_seconds
    assert phases["data"] > 0 and phases["model"] > 0 and phases["loop"] > 0


def test_time_spread_over_the_loops_calls_is_summed_by_call(program):
    result, train = _plain(program, spread=True)
    parts = {p.label: p for p in result.loop_parts}
    assert "set_postfix() (fakebar/__init__.py)" in parts  # with the burn() under it
    assert "burn() (fakebar/__init__.py)" in parts  # called by the loop itself: a part of its own
    top = result.loop_parts[0]
    assert top.seconds < 0.75 * sum(p.seconds for p in result.loop_parts)
    noise = parts["add_noise()"]
    assert noise.seconds < 0.1 * top.seconds and noise.owner == "user"


def test_a_user_function_holding_most_of_the_loop_is_opened_up(program):
    result, train = _plain(program, spread=False)
    labels = [p.label for p in result.loop_parts]
    assert "step()" not in labels  # not one opaque part: what it calls
    postfix = next(p for p in result.loop_parts if p.label == "set_postfix() (fakebar/__init__.py)")
    assert postfix.caller == f"step() {train.__file__}:{_line('def step(')}"


def test_a_user_function_busy_in_its_own_code_stays_whole(program):
    result, _ = _plain(program, spread="own")
    top = result.loop_parts[0]
    assert top.label == "crunch()" and top.seconds > 0.5 * sum(p.seconds for p in result.loop_parts)


def test_the_datasets_tokenizer_is_named_with_its_caller(program):
    result, train = _plain(program, spread=True)
    top = max(result.data_parts, key=lambda p: p.seconds)
    assert top.label == "encode() (tokenizers/__init__.py)" and top.area == "tokenize"
    assert top.caller == f"__getitem__() {train.__file__}:{_line('def __getitem__')}"


def test_only_the_loops_own_tensor_creations_count_as_the_loops(program):
    result, train = _plain(program, spread=True)
    made = {(c.function, c.context): c for c in result.creations}
    loop = made[("torch.randn", "loop")]
    assert loop.at == f"{train.__file__}:{_line('torch.randn')}" and loop.on_device is False and loop.calls >= 10
    assert made[("torch.tensor", "data")].caller == "__getitem__"  # the dataset's: data loading


def test_a_frameworks_own_code_is_charged_to_its_areas(program):
    modules, is_user = program
    train, fit_loop = modules["train"], modules["lightning.pytorch.loops.fit_loop"]
    module = train.Module()
    batch = train.torch.randn(4, 8)

    def run(window):
        for i in range(10):
            if i == 1:
                window.enable()
            fit_loop.advance(module, batch)
        window.disable()

    table, wall = _profile(run)
    result = analyze(table, wall, is_user, "lightning", None, categorize)
    parts = {p.label: p for p in result.loop_parts}
    logging = parts["logging (self.log) (lightning)"]
    assert logging.owner == "framework" and logging is result.loop_parts[0]
    assert "the fit loop (lightning)" in parts
    assert parts["training_step()"].seconds < logging.seconds  # the user's hook without the framework's log
