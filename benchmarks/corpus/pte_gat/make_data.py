"""Fake Cora for pytorch/examples gat/main.py: RUN/cora/cora.content and cora.cites.

Cora's real sizes (2708 papers, 1433 binary word features ~1.3% dense, 7 classes,
5429 citations), random contents. The script skips its download when both files exist.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cora  # noqa: E402

if __name__ == "__main__":
    cora(Path(sys.argv[1]) / "cora")
