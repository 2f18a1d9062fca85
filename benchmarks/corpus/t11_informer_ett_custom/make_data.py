"""Fake ETTh1-like CSV for zhouhaoyi/Informer2020's main_informer.py run with --data custom.

--data custom (Dataset_Custom) reads ROOT_PATH/DATA_PATH (--root_path ./data/ETT/ --data_path ETTh1.csv, the
repository's default location) with a date column, the feature columns and the target OT, and splits the rows
70/10/20 (train/val/test) by its length; we write ROWS hourly rows from 2016-07-01 00:00 with the real ETTh1
columns (HUFL, HULL, MUFL, MULL, LUFL, LULL, OT): daily and weekly sinusoids + a random walk + noise, seeded.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import ett_csv  # noqa: E402

ROWS = 1800


if __name__ == "__main__":
    ett_csv(Path(sys.argv[1]) / "data" / "ETT" / "ETTh1.csv", rows=ROWS)
