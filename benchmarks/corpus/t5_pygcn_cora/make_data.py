"""Fake Cora for tkipf/pygcn's pygcn/train.py.

utils.load_data() reads "../data/cora/cora.content" and "../data/cora/cora.cites" relative to the working
directory (the recipe runs in RUN/pygcn, as the README's `python train.py`), so the files go to RUN/data/cora:
fakedata's cora writer with Cora's sizes (2708 papers, 1433 binary word features at Cora's density, 7 labels drawn
at random, 5429 random citation pairs). The repository ships the real Cora there; we generate ours instead.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cora  # noqa: E402

if __name__ == "__main__":
    cora(Path(sys.argv[1]) / "data" / "cora")
